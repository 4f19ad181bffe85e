import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { CITY_DATABASES, OUTPUT, countryPlacesModule } from "../../../scripts/country-places.ts";
import { COUNTRY_PLACES } from "../../../src/ip/geo/country-places.ts";
import { locationPrecision } from "../../../src/ip/answer/explanation.ts";
import { scaled } from "../../support/slowness.ts";

test(
  "src/ip/geo/country-places.ts is what scripts/country-places.ts writes from the bundled city data",
  async () => {
    expect(readFileSync(OUTPUT, "utf8")).toBe(await countryPlacesModule(CITY_DATABASES));
  },
  scaled(60_000),
);

test("a place for nearly every country, inside the globe; a zone only for countries with one", () => {
  const places = Object.entries(COUNTRY_PLACES);
  expect(places.length).toBeGreaterThan(240);
  for (const [code, [latitude, longitude, zone]] of places) {
    expect(code).toMatch(/^[A-Z]{2}$/);
    expect(Math.abs(latitude)).toBeLessThanOrEqual(90);
    expect(Math.abs(longitude)).toBeLessThanOrEqual(180);
    expect([latitude, longitude]).not.toEqual([0, 0]);
    if (zone) expect(() => new Intl.DateTimeFormat("en", { timeZone: zone })).not.toThrow();
  }
  expect(COUNTRY_PLACES.DE![2]).toBe("Europe/Berlin");
  expect(COUNTRY_PLACES.FR![2]).toBe("Europe/Paris");
  for (const manyZones of ["US", "AU", "RU", "BR", "CA", "CN"]) expect(COUNTRY_PLACES[manyZones]![2]).toBe("");
});

test("an answer's precision is its finest part", () => {
  const place = { city: "", region: "", region_name: "", country_code: "" };
  expect(locationPrecision({ ...place, city: "Berlin", region: "BE", country_code: "DE" })).toBe("city");
  expect(locationPrecision({ ...place, region_name: "Bavaria", country_code: "DE" })).toBe("region");
  expect(locationPrecision({ ...place, country_code: "AU" })).toBe("country");
  expect(locationPrecision(place)).toBe("none");
});
