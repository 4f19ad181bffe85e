import { COUNTRY_NAMES } from "./country-names.ts";

/** English short name of every two-letter code that has one (scripts/country-names.ts wrote them from CLDR). */
const NAMES: ReadonlyMap<string, string> = new Map(Object.entries(COUNTRY_NAMES));

/** English short name of an ISO 3166-1 alpha-2 code, '' when unknown. */
export function countryName(code: string): string {
  return NAMES.get(code) ?? "";
}

/** The regional-indicator emoji pair of a known country code, '' for anything else. */
export function countryFlag(code: string): string {
  if (!NAMES.has(code)) return "";
  return String.fromCodePoint(0x1f1e6 + code.charCodeAt(0) - 65, 0x1f1e6 + code.charCodeAt(1) - 65);
}
