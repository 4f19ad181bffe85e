/**
 * A strictly parsed address. `text` is the canonical form the API echoes as "ip":
 * for IPv4 the input itself (strict parsing leaves only one spelling), for IPv6 the
 * RFC 5952 form (lower case, longest zero run as "::"). The numbers are what the
 * binary-search indexes compare: IPv4 as a uint32, IPv6 as four uint32 words, most
 * significant first (the same layout as the index files).
 */
export type ParsedIp = ParsedIPv4 | ParsedIPv6;
export interface ParsedIPv4 {
  readonly version: 4;
  readonly text: string;
  readonly v4: number;
}
export interface ParsedIPv6 {
  readonly version: 6;
  readonly text: string;
  readonly v6: Uint32Array;
}

/** "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255" */
const LONGEST_ADDRESS = 45;

/**
 * IPv4 only as canonical dotted-quad decimal (no octal, hex, short, padded or
 * port/prefix forms); IPv6 in any RFC 4291 text form, without zone id or brackets.
 * An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is answered as its IPv4 address.
 */
export function parseIpAddress(raw: string): ParsedIp | null {
  if (raw.length === 0 || raw.length > LONGEST_ADDRESS) return null;
  if (raw.indexOf(":") === -1) {
    const v4 = parseDottedQuad(raw, 0, raw.length);
    return v4 === -1 ? null : { version: 4, text: raw, v4 };
  }
  return parseIPv6(raw);
}

/** The uint32 value of `s[start, end)` as a canonical dotted quad, or -1. */
export function parseDottedQuad(s: string, start: number, end: number): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2e) {
      if (digits === 0 || ++dots > 3) return -1;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (digits === 1 && octet === 0) return -1; // a leading zero reads as octal elsewhere
      octet = octet * 10 + (c - 0x30);
      if (octet > 255) return -1;
      digits++;
    } else {
      return -1;
    }
  }
  if (dots !== 3 || digits === 0) return -1;
  return value * 256 + octet;
}

/**
 * RFC 4291 text: up to eight groups of 1–4 hex digits, at most one "::" standing for
 * one or more zero groups, and optionally a dotted quad as the last 32 bits. One pass,
 * no intermediate strings: this runs for every IPv6 request.
 */
const COLON = 0x3a;

function parseIPv6(raw: string): ParsedIp | null {
  const groups = new Uint16Array(8);
  const length = raw.length;
  let count = 0;
  let gap = -1; // where "::" stands, as a group index
  let i = 0;
  if (raw.charCodeAt(0) === COLON) {
    if (raw.charCodeAt(1) !== COLON) return null;
    gap = 0;
    i = 2;
    if (i === length) return ipv6Result(groups, 0, gap);
  }
  while (true) {
    const start = i;
    let value = 0;
    while (i < length && i - start < 5) {
      const digit = hexDigit(raw.charCodeAt(i));
      if (digit === -1) break;
      value = value * 16 + digit;
      i++;
    }
    const digits = i - start;
    if (i < length && raw.charCodeAt(i) === 0x2e) {
      // The embedded IPv4 address: the rest of the text, in the last two groups.
      if (count > 6 || (gap === -1 && count !== 6)) return null;
      const v4 = parseDottedQuad(raw, start, length);
      if (v4 === -1) return null;
      groups[count++] = v4 >>> 16;
      groups[count++] = v4 & 0xffff;
      return ipv6Result(groups, count, gap);
    }
    if (digits === 0 || digits > 4 || count === 8) return null;
    groups[count++] = value;
    if (i === length) return ipv6Result(groups, count, gap);
    if (raw.charCodeAt(i) !== COLON) return null;
    i++;
    if (raw.charCodeAt(i) === COLON) {
      if (gap !== -1) return null;
      gap = count;
      i++;
      if (i === length) return ipv6Result(groups, count, gap);
    }
  }
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** The address from its groups, with the "::" gap (if any) filled by zero groups. */
function ipv6Result(p: Uint16Array, count: number, gap: number): ParsedIp | null {
  if (gap === -1 ? count !== 8 : count > 7) return null;
  if (gap !== -1) {
    const tail = count - gap;
    p.copyWithin(8 - tail, gap, count);
    p.fill(0, gap, 8 - tail);
  }
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0xffff) {
    const v4 = p[6] * 65536 + p[7];
    return { version: 4, text: formatIPv4(v4), v4 };
  }
  const v6 = new Uint32Array(4);
  for (let k = 0; k < 4; k++) v6[k] = p[2 * k] * 65536 + p[2 * k + 1];
  return { version: 6, text: formatIPv6(p), v6 };
}

const HEX_DIGITS = new TextEncoder().encode("0123456789abcdef");
/** "ffff:…:ffff" is the longest form. */
const LONGEST_IPV6 = 39;
const ASCII = new TextDecoder("latin1");

/**
 * RFC 5952: lower case, no leading zeros, the longest run of two or more zero groups
 * (the first of equals) as "::". Written as bytes and decoded once, which is quicker
 * than concatenating the groups' strings.
 */
function formatIPv6(p: Uint16Array): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let k = 0; k < 8; ) {
    if (p[k] !== 0) {
      k++;
      continue;
    }
    const start = k;
    while (k < 8 && p[k] === 0) k++;
    if (k - start > bestLength) {
      bestStart = start;
      bestLength = k - start;
    }
  }
  const out = new Uint8Array(LONGEST_IPV6);
  let n = 0;
  for (let k = 0; k < 8; k++) {
    if (k === bestStart) {
      out[n++] = COLON;
      out[n++] = COLON;
      k += bestLength - 1;
      continue;
    }
    if (k !== 0 && k !== bestStart + bestLength) out[n++] = COLON;
    const group = p[k];
    if (group >= 0x1000) out[n++] = HEX_DIGITS[group >>> 12];
    if (group >= 0x100) out[n++] = HEX_DIGITS[(group >>> 8) & 15];
    if (group >= 0x10) out[n++] = HEX_DIGITS[(group >>> 4) & 15];
    out[n++] = HEX_DIGITS[group & 15];
  }
  return ASCII.decode(out.subarray(0, n));
}

export function formatIPv4(v4: number): string {
  return `${v4 >>> 24}.${(v4 >>> 16) & 255}.${(v4 >>> 8) & 255}.${v4 & 255}`;
}
