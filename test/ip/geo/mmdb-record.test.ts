import { describe, expect, test } from "bun:test";
import { fromFlatRecord, fromMaxMindRecord, schemaOfRecord } from "../../../src/ip/geo/mmdb-record.ts";

/** Shaped like a GeoIP2-City / GeoLite2-City / DBIP-City-Lite record. */
const MUNICH = {
  city: { geoname_id: 2867714, names: { en: "Munich", de: "München" } },
  continent: { code: "EU", names: { en: "Europe" } },
  country: { geoname_id: 2921044, iso_code: "DE", names: { en: "Germany", de: "Deutschland" } },
  location: { accuracy_radius: 20, latitude: 48.13743, longitude: 11.57549, time_zone: "Europe/Berlin" },
  postal: { code: "80331" },
  registered_country: { iso_code: "DE", names: { en: "Germany" } },
  subdivisions: [
    { iso_code: "BY", names: { en: "Bavaria", de: "Bayern" } },
    { iso_code: "091", names: { en: "Upper Bavaria" } },
  ],
};

describe("the MaxMind and DB-IP City schema", () => {
  test("maps every field", () => {
    expect(fromMaxMindRecord(MUNICH)).toEqual({
      country: "Germany",
      country_code: "DE",
      region: "BY",
      region_name: "Bavaria",
      city: "Munich",
      subdivisions: "Upper Bavaria",
      zip: "80331",
      latitude: 48.1374,
      longitude: 11.5755,
      timezone: "Europe/Berlin",
    });
  });
  test("three levels of subdivisions are joined", () => {
    const record = {
      country: { iso_code: "GB" },
      subdivisions: [
        { iso_code: "ENG", names: { en: "England" } },
        { names: { en: "West Berkshire" } },
        { names: { en: "Newbury" } },
      ],
    };
    expect(fromMaxMindRecord(record)).toMatchObject({
      region: "ENG",
      region_name: "England",
      subdivisions: "West Berkshire, Newbury",
    });
  });
  test("falls back to the registered country and derives a missing subdivision code", () => {
    expect(
      fromMaxMindRecord({ registered_country: { iso_code: "FR" }, subdivisions: [{ names: { en: "Île-de-France" } }] }),
    ).toMatchObject({
      country: "France",
      country_code: "FR",
      region: "IDF",
      region_name: "Île-de-France",
    });
  });
  test("a country-only record (GeoLite2-Country)", () => {
    expect(fromMaxMindRecord({ country: { iso_code: "JP", names: { en: "Japan" } } })).toMatchObject({
      country: "Japan",
      country_code: "JP",
      region: "",
      city: "",
      latitude: 0,
    });
  });
  test("an empty record is all empty", () => {
    expect(fromMaxMindRecord({})).toMatchObject({
      country: "",
      country_code: "",
      region: "",
      subdivisions: "",
      latitude: 0,
      longitude: 0,
    });
  });
});

describe("the flat @ip-location-db schema", () => {
  test("maps every field", () => {
    expect(
      fromFlatRecord({
        city: "Bracknell",
        country_code: "GB",
        latitude: 51.40359878540039,
        longitude: -0.7617999911308289,
        postcode: "RG12",
        state1: "England",
        state2: "Bracknell Forest",
        timezone: "Europe/London",
      }),
    ).toEqual({
      country: "United Kingdom",
      country_code: "GB",
      region: "ENG",
      region_name: "England",
      city: "Bracknell",
      subdivisions: "Bracknell Forest",
      zip: "RG12",
      latitude: 51.4036,
      longitude: -0.7618,
      timezone: "Europe/London",
    });
  });
  test("a country-only record", () => {
    expect(fromFlatRecord({ country_code: "AU" })).toMatchObject({
      country: "Australia",
      country_code: "AU",
      region: "",
      region_name: "",
      timezone: "",
    });
  });
});

describe("coordinates are rounded to 4 decimals", () => {
  test.each([
    [37.750999450683594, 37.751],
    [-97.8219985961914, -97.822],
    [0.00004, 0],
    [-0.00006, -0.0001],
    [89.99999, 90],
  ])("%p → %p", (raw, rounded) => {
    expect(fromFlatRecord({ country_code: "US", latitude: raw }).latitude).toBe(rounded);
  });
});

describe("the schema is read from the record's shape", () => {
  test.each([
    ["country only, flat", { country_code: "US" }, "flat"],
    ["city, flat", { country_code: "GB", state1: "England" }, "flat"],
    ["GeoIP2 City", MUNICH, "maxmind"],
    ["GeoIP2 Country", { country: { iso_code: "JP" } }, "maxmind"],
    ["registered country only", { registered_country: { iso_code: "JP" } }, "maxmind"],
    ["an ASN record", { autonomous_system_number: 15169 }, null],
    ["null", null, null],
    ["a string", "text", null],
  ])("%s → %p", (_, record, schema) => {
    expect(schemaOfRecord(record)).toBe(schema as never);
  });
});
