const displayNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });

/** CLDR names that carry disambiguation an API answer does not want ("Hong Kong SAR China"). */
const PLAIN_NAMES: Readonly<Record<string, string>> = {
  HK: "Hong Kong",
  MO: "Macao",
  PS: "Palestine",
  MM: "Myanmar",
  CD: "DR Congo",
  CG: "Congo Republic",
};

/** ISO 3166-1 user-assigned codes (AA, QM–QZ, XA–XZ, ZZ); Kosovo's XK is in common use. */
const USER_ASSIGNED = /^(AA|Q[M-Z]|X[A-JL-Z]|ZZ)$/;

/** English short name of an ISO 3166-1 alpha-2 code, '' when unknown. */
export function countryName(code: string): string {
  if (!/^[A-Z]{2}$/.test(code) || USER_ASSIGNED.test(code)) return "";
  if (PLAIN_NAMES[code]) return PLAIN_NAMES[code];
  try {
    return (displayNames.of(code) ?? "").replace(" & ", " and ");
  } catch {
    return "";
  }
}

/** The regional-indicator emoji pair of a known country code, '' for anything else. */
export function countryFlag(code: string): string {
  if (!countryName(code)) return "";
  return String.fromCodePoint(0x1f1e6 + code.charCodeAt(0) - 65, 0x1f1e6 + code.charCodeAt(1) - 65);
}
