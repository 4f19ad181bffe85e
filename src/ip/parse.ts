import ipaddr from "ipaddr.js";

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

function isIPv6TextChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x3a) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46) || c === 0x2e;
}

function parseIPv6(raw: string): ParsedIp | null {
  for (let i = 0; i < raw.length; i++) {
    if (!isIPv6TextChar(raw.charCodeAt(i))) return null; // zone ids, brackets, prefixes, spaces
  }
  let hex = raw;
  if (raw.indexOf(".") !== -1) {
    // ipaddr.js reads an embedded IPv4 laxly and turns "::1.2.3.4" into ::ffff:…, so it gets hex groups instead.
    const colon = raw.lastIndexOf(":");
    const v4 = parseDottedQuad(raw, colon + 1, raw.length);
    if (v4 === -1) return null;
    hex = `${raw.slice(0, colon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  let address: ipaddr.IPv6;
  try {
    address = ipaddr.IPv6.parse(hex);
  } catch {
    return null;
  }
  const p = address.parts;
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0xffff) {
    const v4 = p[6] * 65536 + p[7];
    return { version: 4, text: formatIPv4(v4), v4 };
  }
  const v6 = new Uint32Array(4);
  v6[0] = p[0] * 65536 + p[1];
  v6[1] = p[2] * 65536 + p[3];
  v6[2] = p[4] * 65536 + p[5];
  v6[3] = p[6] * 65536 + p[7];
  return { version: 6, text: address.toString(), v6 };
}

export function formatIPv4(v4: number): string {
  return `${v4 >>> 24}.${(v4 >>> 16) & 255}.${(v4 >>> 8) & 255}.${v4 & 255}`;
}
