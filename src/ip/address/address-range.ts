import { type ParsedIp, parseIpAddress } from "./parse.ts";

/**
 * ipaddr.js, evaluated at the first call: this module is imported before main.ts on every start, and a start
 * calls neither function that needs it (evaluating it there cost ~0.5 ms).
 */
const ipaddr = (): typeof import("ipaddr.js") => require("ipaddr.js");

/**
 * An inclusive address range as 128-bit-safe integers: every list, feed and table of
 * addresses is read into this one form. Lookups on the request path use the compiled
 * indexes and the typed forms in ParsedIp instead.
 */
export interface AddressRange {
  readonly version: 4 | 6;
  readonly first: bigint;
  readonly last: bigint;
}

const bitsOf = (version: 4 | 6) => (version === 4 ? 32 : 128);

/**
 * `1.2.3.0/24`, `2001:db8::/32` or a single address, written as the API accepts
 * addresses (`parseIpAddress`); host bits below the prefix are ignored. Null when malformed.
 */
export function parseCidr(text: string): AddressRange | null {
  const slash = text.indexOf("/");
  const ip = parseIpAddress(slash === -1 ? text : text.slice(0, slash));
  if (!ip) return null;
  const width = bitsOf(ip.version);
  let bits = width;
  if (slash !== -1) {
    const b = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(b) || Number(b) > width || (b.length > 1 && b[0] === "0")) return null;
    bits = Number(b);
  }
  const hostBits = BigInt(width - bits);
  const first = (addressValue(ip) >> hostBits) << hostBits;
  return { version: ip.version, first, last: first + (1n << hostBits) - 1n };
}

/** The address as one integer, as ranges hold it. */
export function addressValue(ip: ParsedIp): bigint {
  if (ip.version === 4) return BigInt(ip.v4);
  const [a, b, c, d] = ip.v6;
  return (BigInt(a) << 96n) | (BigInt(b) << 64n) | (BigInt(c) << 32n) | BigInt(d);
}

export function rangeContains(range: AddressRange, ip: ParsedIp): boolean {
  if (range.version !== ip.version) return false;
  const value = addressValue(ip);
  return value >= range.first && value <= range.last;
}

/**
 * "192.0.2.0/24", "2001:db8::/32", "::ffff:0:0/96". Throws on malformed input: meant for
 * the program's own tables, which name IPv4-mapped space that `parseCidr` reads as IPv4.
 */
export function rangeOfCidr(cidr: string): AddressRange {
  const [address, bits] = ipaddr().parseCIDR(cidr);
  const version = address.kind() === "ipv4" ? 4 : 6;
  let first = 0n;
  for (const byte of address.toByteArray()) first = (first << 8n) | BigInt(byte);
  const hostBits = BigInt(bitsOf(version) - bits);
  first = (first >> hostBits) << hostBits;
  return { version, first, last: first + (1n << hostBits) - 1n };
}

/** Sorted, with overlapping and adjacent ranges of the same family joined. */
export function mergeRanges(ranges: readonly AddressRange[]): AddressRange[] {
  const sorted = [...ranges].sort(
    (a, b) => a.version - b.version || (a.first < b.first ? -1 : a.first > b.first ? 1 : 0),
  );
  const merged: AddressRange[] = [];
  for (const r of sorted) {
    const top = merged[merged.length - 1];
    if (top && top.version === r.version && r.first <= top.last + 1n) {
      if (r.last > top.last) merged[merged.length - 1] = { ...top, last: r.last };
    } else {
      merged.push(r);
    }
  }
  return merged;
}

/** `ranges` with every address in `holes` taken out. */
export function subtractRanges(ranges: readonly AddressRange[], holes: readonly AddressRange[]): AddressRange[] {
  let pieces = mergeRanges(ranges);
  for (const hole of holes) {
    const next: AddressRange[] = [];
    for (const r of pieces) {
      if (r.version !== hole.version || hole.last < r.first || hole.first > r.last) {
        next.push(r);
        continue;
      }
      if (r.first < hole.first) next.push({ ...r, last: hole.first - 1n });
      if (r.last > hole.last) next.push({ ...r, first: hole.last + 1n });
    }
    pieces = next;
  }
  return pieces;
}

/** The fewest CIDR blocks that cover exactly the range. */
export function cidrsOfRange(range: AddressRange): string[] {
  const width = bitsOf(range.version);
  const cidrs: string[] = [];
  let first = range.first;
  while (first <= range.last) {
    let hostBits = 0;
    while (
      hostBits < width &&
      ((first >> BigInt(hostBits)) & 1n) === 0n &&
      first + (1n << BigInt(hostBits + 1)) - 1n <= range.last
    )
      hostBits++;
    cidrs.push(`${formatAddress(range.version, first)}/${width - hostBits}`);
    first += 1n << BigInt(hostBits);
  }
  return cidrs;
}

function formatAddress(version: 4 | 6, value: bigint): string {
  const bytes: number[] = [];
  for (let i = version === 4 ? 3 : 15; i >= 0; i--) bytes.push(Number((value >> BigInt(i * 8)) & 0xffn));
  return ipaddr().fromByteArray(bytes).toString();
}
