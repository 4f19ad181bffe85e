import { describe, expect, test } from "bun:test";
import { countryFlag, countryName } from "../../../src/ip/geo/country.ts";

describe("country names are English short names", () => {
  test.each([
    ["US", "United States"],
    ["GB", "United Kingdom"],
    ["DE", "Germany"],
    ["CZ", "Czechia"],
    ["XK", "Kosovo"],
    ["HK", "Hong Kong"],
    ["MO", "Macao"],
    ["PS", "Palestine"],
    ["MM", "Myanmar"],
    ["CD", "DR Congo"],
    ["CG", "Congo Republic"],
    ["BA", "Bosnia and Herzegovina"],
    ["TT", "Trinidad and Tobago"],
  ])("%s → %s", (code, name) => {
    expect(countryName(code)).toBe(name);
  });
  test.each(["", "XX", "ZZ", "AA", "QO", "usa", "us", "U1", "🇺🇸"])("%p has none", (code) => {
    expect(countryName(code)).toBe("");
  });
});

describe("flags are regional-indicator pairs of known codes", () => {
  test.each([
    ["US", "🇺🇸"],
    ["GB", "🇬🇧"],
    ["DE", "🇩🇪"],
    ["XK", "🇽🇰"],
    ["XX", ""],
    ["ZZ", ""],
    ["", ""],
    ["usa", ""],
    ["gb", ""],
  ])("%p → %p", (code, flag) => {
    expect(countryFlag(code)).toBe(flag);
  });
});
