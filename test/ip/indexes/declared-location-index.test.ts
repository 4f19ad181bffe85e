import { describe, expect, test } from "bun:test";
import { parseCidr } from "../../../src/ip/address/address-range.ts";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { UNKNOWN_LOCATION, located } from "../../../src/ip/geo/geo-record.ts";
import { subdivisionNames } from "../../../src/ip/geo/subdivision-codes.ts";
import {
  type Declaration,
  DeclaredLocationIndexBuilder,
  DeclaredLocations,
} from "../../../src/ip/indexes/declared-location-index.ts";

const FRANKFURT = {
  ...UNKNOWN_LOCATION,
  country: "Germany",
  country_code: "DE",
  region: "HE",
  region_name: "Hesse",
  city: "Frankfurt am Main",
  latitude: 50.11,
  longitude: 8.68,
  timezone: "Europe/Berlin",
};
const REGIONS = new Map([["aws:eu-central-1", FRANKFURT]]);
const ASHBURN = located({
  ...UNKNOWN_LOCATION,
  country: "United States",
  country_code: "US",
  region: "VA",
  city: "Ashburn",
  zip: "20149",
  latitude: 39.04,
  longitude: -77.49,
  timezone: "America/New_York",
});
const BERLIN_DB = located({
  ...UNKNOWN_LOCATION,
  country: "Germany",
  country_code: "DE",
  region: "BE",
  city: "Berlin",
  zip: "10115",
  latitude: 52.52,
  longitude: 13.4,
  timezone: "Europe/Berlin",
});

function index(rows: [string, Declaration][]): DeclaredLocations {
  const builder = new DeclaredLocationIndexBuilder();
  for (const [cidr, declaration] of rows) builder.add(parseCidr(cidr)!, declaration);
  return new DeclaredLocations(builder.build(), REGIONS, subdivisionNames());
}
const at = (d: DeclaredLocations, ip: string, db = ASHBURN) => {
  const entry = d.entryOf(parseIpAddress(ip)!);
  return { geo: d.locatedAt(entry, db).geo, source: d.sourceAt(entry) };
};

const aws: Declaration = { source: "aws", regions: ["aws:eu-central-1-ham-1", "aws:eu-central-1"] };
const office: Declaration = { source: "offices", place: { country: "DE", region: "DE-BE", city: "Berlin" } };
const wide: Declaration = { source: "offices", place: { country: "FR", region: "", city: "" } };

describe("declared locations", () => {
  test("a provider's region gives the table's whole place, the first of its names the table has", () => {
    expect(at(index([["3.120.0.0/14", aws]]), "3.120.0.1")).toEqual({ geo: FRANKFURT, source: "aws:eu-central-1" });
  });
  test("the narrowest declaration speaks, whichever kind it is; on a tie the geofeed row", () => {
    const d = index([
      ["3.120.0.0/14", aws],
      ["3.120.7.0/24", office],
      ["3.0.0.0/12", wide],
      ["3.121.0.0/16", wide],
    ]);
    expect(at(d, "3.120.7.1")).toMatchObject({
      geo: { country_code: "DE", city: "Berlin", region: "BE", zip: "", latitude: 0 },
      source: "geofeed:offices",
    });
    expect(at(d, "3.120.8.1").source).toBe("aws:eu-central-1");
    expect(at(d, "3.1.0.1")).toMatchObject({ geo: { country_code: "FR", city: "" }, source: "geofeed:offices" });
    expect(at(d, "3.121.0.1").source).toBe("geofeed:offices");
    expect(
      at(
        index([
          ["3.120.0.0/14", aws],
          ["3.120.0.0/14", wide],
        ]),
        "3.120.0.1",
      ).source,
    ).toBe("geofeed:offices");
  });
  test("a geofeed row the database agrees with (country and city) keeps the database's record, with its coordinates", () => {
    expect(at(index([["3.120.7.0/24", office]]), "3.120.7.1", BERLIN_DB)).toEqual({
      geo: BERLIN_DB.geo,
      source: "geofeed:offices",
    });
  });
  test("a region the table lacks, or no declaration, leaves the database's answer, the very same object", () => {
    const d = index([["3.120.0.0/14", { source: "aws", regions: ["aws:me-west-1"] }]]);
    expect(d.locatedAt(d.entryOf(parseIpAddress("3.120.0.1")!), ASHBURN)).toBe(ASHBURN);
    expect(d.sourceAt(d.entryOf(parseIpAddress("3.120.0.1")!))).toBe("");
    expect(d.unplaced).toEqual(["aws:me-west-1"]);
    expect(d.locatedAt(d.entryOf(parseIpAddress("8.8.8.8")!), ASHBURN)).toBe(ASHBURN);
  });
  test("a version built before cloud regions (relay-places.idx, rows of four columns) reads as geofeed rows", () => {
    const file = new DeclaredLocationIndexBuilder();
    file.add(parseCidr("104.28.28.0/26")!, office);
    const built = file.build();
    const d = new DeclaredLocations(
      { ...built, meta: { rows: (built.meta.rows as string[][]).map((row) => row.slice(0, 4)) } },
      REGIONS,
      subdivisionNames(),
    );
    expect(at(d, "104.28.28.1")).toMatchObject({
      geo: { country_code: "DE", city: "Berlin" },
      source: "geofeed:offices",
    });
  });
  test("placeAt gives a geofeed row with its list, and nothing for a region", () => {
    const d = index([
      ["3.120.0.0/14", aws],
      ["3.120.7.0/24", office],
    ]);
    expect(d.placeAt(d.entryOf(parseIpAddress("3.120.7.1")!))).toEqual({
      country: "DE",
      region: "DE-BE",
      city: "Berlin",
      source: "offices",
    });
    expect(d.placeAt(d.entryOf(parseIpAddress("3.120.8.1")!))).toBeNull();
  });
});
