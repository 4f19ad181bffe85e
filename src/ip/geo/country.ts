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

/** English short name of every two-letter code that has one, written once: the ICU lookup costs more than a database record's mapping. */
const NAMES: ReadonlyMap<string, string> = (() => {
  const displayNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
  const names = new Map<string, string>();
  for (let first = 65; first <= 90; first++) {
    for (let second = 65; second <= 90; second++) {
      const code = String.fromCharCode(first, second);
      if (USER_ASSIGNED.test(code)) continue;
      const name = PLAIN_NAMES[code] ?? displayNames.of(code)?.replace(" & ", " and ");
      if (name) names.set(code, name);
    }
  }
  return names;
})();

/** English short name of an ISO 3166-1 alpha-2 code, '' when unknown. */
export function countryName(code: string): string {
  return NAMES.get(code) ?? "";
}

/** The regional-indicator emoji pair of a known country code, '' for anything else. */
export function countryFlag(code: string): string {
  if (!NAMES.has(code)) return "";
  return String.fromCodePoint(0x1f1e6 + code.charCodeAt(0) - 65, 0x1f1e6 + code.charCodeAt(1) - 65);
}
