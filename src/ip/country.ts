const names = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
const cache = new Map<string, string>();

/** English short name of an ISO 3166-1 alpha-2 code, '' when unknown. */
export function countryName(code: string): string {
  let name = cache.get(code);
  if (name === undefined) {
    try {
      name = /^[A-Z]{2}$/.test(code) ? (names.of(code) ?? "") : "";
    } catch {
      name = "";
    }
    cache.set(code, name);
  }
  return name;
}

/** The regional-indicator emoji pair for a two-letter code, '' for anything else. */
export function countryFlag(code: string): string {
  if (!/^[A-Z]{2}$/.test(code)) return "";
  return String.fromCodePoint(0x1f1e6 + code.charCodeAt(0) - 65, 0x1f1e6 + code.charCodeAt(1) - 65);
}
