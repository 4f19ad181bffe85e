import { type AddressRange, parseCidr } from "../ip/address/address-range.ts";
import { DatasetError } from "../ip/dataset-error.ts";

function entries(text: string): { line: number; value: string }[] {
  const out: { line: number; value: string }[] = [];
  text.split("\n").forEach((raw, i) => {
    const hash = raw.indexOf("#");
    const value = (hash === -1 ? raw : raw.slice(0, hash)).trim();
    if (value) out.push({ line: i + 1, value });
  });
  return out;
}

/** `AS123 # comment` lines (the "AS" is optional). */
export function parseAsnList(text: string, file: string): number[] {
  return entries(text).map(({ line, value }) => {
    const m = /^(?:AS)?(\d{1,10})$/i.exec(value);
    if (!m || Number(m[1]) > 0xffffffff)
      throw new DatasetError(`${file}:${line}`, `"${value}" is not an AS number`, "fix or remove the line");
    return Number(m[1]);
  });
}

/** `CIDR # comment` or single-address lines. */
export function parseCidrList(text: string, file: string): AddressRange[] {
  return parseExpiringCidrList(text, file).map((e) => e.cidr);
}

/** As `parseCidrList`, where a line may end with `until YYYY-MM-DD` (UTC, the day included). */
export function parseExpiringCidrList(text: string, file: string): { cidr: AddressRange; until: number | null }[] {
  return entries(text).map(({ line, value }) => {
    const [address, keyword, day, ...rest] = value.split(/\s+/);
    const cidr = parseCidr(address);
    if (!cidr)
      throw new DatasetError(`${file}:${line}`, `"${value}" is not an IP address or CIDR`, "fix or remove the line");
    if (keyword === undefined) return { cidr, until: null };
    const until = Date.parse(`${day}T00:00:00Z`) + 86_400_000;
    if (keyword !== "until" || !/^\d{4}-\d\d-\d\d$/.test(day ?? "") || Number.isNaN(until) || rest.length) {
      throw new DatasetError(
        `${file}:${line}`,
        `"${value}" is not "CIDR" or "CIDR until YYYY-MM-DD"`,
        "fix or remove the line",
      );
    }
    return { cidr, until };
  });
}
