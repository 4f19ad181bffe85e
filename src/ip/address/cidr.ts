import { type ParsedIp, parseIpAddress } from "./parse.ts";

/** An address block; IPv4 as a uint32 range, IPv6 as a 128-bit prefix over four words. */
export type Cidr =
  | { readonly version: 4; readonly start: number; readonly end: number }
  | { readonly version: 6; readonly words: Uint32Array; readonly bits: number };

/** `1.2.3.0/24`, `2001:db8::/32`, or a single address. Null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf("/");
  const ip = parseIpAddress(slash === -1 ? text : text.slice(0, slash));
  if (!ip) return null;
  const max = ip.version === 4 ? 32 : 128;
  let bits = max;
  if (slash !== -1) {
    const b = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(b) || Number(b) > max || (b.length > 1 && b[0] === "0")) return null;
    bits = Number(b);
  }
  if (ip.version === 4) {
    const size = 2 ** (32 - bits);
    const start = Math.floor(ip.v4 / size) * size;
    return { version: 4, start, end: start + size - 1 };
  }
  return { version: 6, words: ip.v6, bits };
}

export function cidrContains(cidr: Cidr, ip: ParsedIp): boolean {
  if (cidr.version === 4) return ip.version === 4 && ip.v4 >= cidr.start && ip.v4 <= cidr.end;
  if (ip.version !== 6) return false;
  let bits = cidr.bits;
  for (let i = 0; i < 4 && bits > 0; i++, bits -= 32) {
    const mask = bits >= 32 ? 0xffffffff : ~(0xffffffff >>> bits) >>> 0;
    if (((ip.v6[i] & mask) >>> 0) !== ((cidr.words[i] & mask) >>> 0)) return false;
  }
  return true;
}
