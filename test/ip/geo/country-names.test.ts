import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { OUTPUT, countryNamesModule } from "../../../scripts/country-names.ts";

test("src/ip/geo/country-names.ts is what scripts/country-names.ts writes from this runtime's CLDR", () => {
  expect(readFileSync(OUTPUT, "utf8")).toBe(countryNamesModule());
});
