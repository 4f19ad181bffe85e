import type { ParsedIp } from "./parse.ts";

/**
 * Address blocks that are not global unicast, after the IANA IPv4 and IPv6
 * Special-Purpose Address Registries (blocks marked "globally reachable" that are
 * ordinary unicast, such as AS112, stay global). Outside 2000::/3 nothing in IPv6
 * is global unicast; inside it, the blocks below are excluded.
 */
export const SPECIAL_PURPOSE_IPV4 = Object.freeze([
  "0.0.0.0/8", // "this network", unspecified
  "10.0.0.0/8", // private
  "100.64.0.0/10", // carrier-grade NAT
  "127.0.0.0/8", // loopback
  "169.254.0.0/16", // link-local
  "172.16.0.0/12", // private
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // documentation TEST-NET-1
  "192.88.99.0/24", // deprecated 6to4 relay anycast
  "192.168.0.0/16", // private
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // documentation TEST-NET-2
  "203.0.113.0/24", // documentation TEST-NET-3
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, and 255.255.255.255 broadcast
]);

export const SPECIAL_PURPOSE_IPV6 = Object.freeze([
  "::/3", // everything below 2000::, incl. ::, ::1, ::ffff:0:0/96, 64:ff9b::/96, 100::/64
  "2001::/23", // IETF protocol assignments (Teredo, ORCHID, benchmarking …)
  "2001:db8::/32", // documentation
  "2002::/16", // 6to4
  "3fff::/20", // documentation
  "4000::/2", // outside 2000::/3: unique-local fc00::/7, link-local fe80::/10, multicast ff00::/8 …
  "8000::/1",
]);

interface Block4 {
  start: number;
  end: number;
}

function cidr4(cidr: string): Block4 {
  const [addr, bits] = cidr.split("/");
  const start = addr.split(".").reduce((v, o) => v * 256 + Number(o), 0);
  return { start, end: start + 2 ** (32 - Number(bits)) - 1 };
}

const V4_BLOCKS = SPECIAL_PURPOSE_IPV4.map(cidr4);

export function isGlobalUnicast(ip: ParsedIp): boolean {
  if (ip.version === 4) {
    const a = ip.v4;
    for (let i = 0; i < V4_BLOCKS.length; i++) if (a >= V4_BLOCKS[i].start && a <= V4_BLOCKS[i].end) return false;
    return true;
  }
  const w0 = ip.v6[0];
  if (w0 < 0x20000000 || w0 >= 0x40000000) return false; // outside 2000::/3
  if (w0 >>> 9 === 0x2001 << 7) return false; // 2001::/23
  if (w0 === 0x20010db8) return false; // 2001:db8::/32
  if (w0 >>> 16 === 0x2002) return false; // 2002::/16
  if (w0 >>> 12 === 0x3fff0) return false; // 3fff::/20
  return true;
}
