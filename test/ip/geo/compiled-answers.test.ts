import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Reader, type Response as MmdbRecord } from "maxmind";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { COUNTRY_PLACES } from "../../../src/ip/geo/country-places.ts";
import { type Located, NOT_LOCATED, located } from "../../../src/ip/geo/geo-record.ts";
import { type FlatRecord, fromFlatRecord } from "../../../src/ip/geo/mmdb-record.ts";
import { BUNDLED_DATA_DIR } from "../../support/bundled-data.ts";
import { bundledIpDatasets } from "../../support/test-app.ts";

/**
 * The answers served from the compiled tables against the same MMDB files decoded
 * directly by the maxmind reader, as riskcheck answered before tables were compiled:
 * the city file of the address's family, the country file where that has no country.
 */
const geoDir = join(BUNDLED_DATA_DIR, "current", "geo");
const readers = {
  cityV4: new Reader<MmdbRecord>(await Bun.file(join(geoDir, "city-ipv4.mmdb")).bytes().then(Buffer.from)),
  cityV6: new Reader<MmdbRecord>(await Bun.file(join(geoDir, "city-ipv6.mmdb")).bytes().then(Buffer.from)),
  country: new Reader<MmdbRecord>(await Bun.file(join(geoDir, "country.mmdb")).bytes().then(Buffer.from)),
};
const ip = await bundledIpDatasets();

function decodedDirectly(address: string): Located {
  const fromFile = (reader: Reader<MmdbRecord>) => {
    const record = reader.get(address) as FlatRecord | null;
    return record === null ? null : located(fromFlatRecord(record));
  };
  const city = fromFile(address.includes(":") ? readers.cityV6 : readers.cityV4);
  if (city !== null && city.geo.country_code !== "") return city;
  const country = fromFile(readers.country);
  if (country === null || country.geo.country_code === "") return city ?? NOT_LOCATED;
  // The country file's records have no place: the answer puts them at their country's.
  const [latitude, longitude, timezone] = COUNTRY_PLACES[country.geo.country_code] ?? [0, 0, ""];
  return located({ ...country.geo, latitude, longitude, timezone });
}

const BUSY_V6 = [0x2400, 0x2600, 0x2800, 0x2a00, 0x2a10, 0x2c00];

function addresses(count: number, seed: number, v6: boolean): string[] {
  let state = seed;
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0);
  return Array.from({ length: count }, () => {
    const a = next();
    if (!v6) return `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`;
    // Inside the registries' busiest /12s, where the IPv6 files have most records.
    const first = BUSY_V6[a % BUSY_V6.length] + ((a >>> 8) & 0xf);
    return [first, (next() >>> 16) & 0x1fff, next() >>> 16, next() >>> 16, next() >>> 16, 0, 0, next() >>> 16]
      .map((g) => g.toString(16))
      .join(":");
  });
}

/** The first `located` addresses that the files locate and the first `unlocated` they do not: random IPv6 addresses are mostly nowhere. */
function locatedMostly(candidates: string[], located: number, unlocated: number): string[] {
  const found = candidates.filter((a) => decodedDirectly(a).geo.country_code !== "").slice(0, located);
  return [...found, ...candidates.filter((a) => decodedDirectly(a).geo.country_code === "").slice(0, unlocated)];
}

describe("answers from the compiled tables are byte for byte those of the MMDB records", () => {
  test.each([
    ["IPv4", addresses(4000, 17, false)],
    ["IPv6", locatedMostly(addresses(80_000, 23, true), 2500, 500)],
  ])("%s", (_, sample) => {
    let withCountry = 0;
    let withCity = 0;
    for (const address of sample) {
      const served = ip.geo.lookup(parseIpAddress(address)!);
      const expected = decodedDirectly(address);
      expect({ address, head: served.headJson, tail: served.tailJson }).toEqual({
        address,
        head: expected.headJson,
        tail: expected.tailJson,
      });
      expect(served.geo).toEqual(expected.geo);
      if (expected.geo.country_code !== "") withCountry++;
      if (expected.geo.city !== "") withCity++;
    }
    // The sample reaches real records, city records among them, not only empty answers.
    expect(withCountry).toBeGreaterThan(sample.length / 2);
    expect(withCity).toBeGreaterThan(sample.length / 50);
  });
});
