import { type AddressRange, cidrsOfRange, rangeOfCidr, subtractRanges } from "./address-range.ts";
import type { ParsedIp } from "./parse.ts";
import { RangeIndexBuilder } from "../indexes/range-index-builder.ts";
import { NOT_FOUND, RangeIndex } from "../indexes/range-index.ts";

/**
 * Space that is not global unicast: the blocks of the IANA IPv4 and IPv6
 * Special-Purpose Address Registries whose "Globally Reachable" column is False or
 * N/A, multicast, and in IPv6 everything outside 2000::/3.
 */
const NOT_GLOBAL: readonly (readonly [cidr: string, name: string])[] = [
  ["0.0.0.0/8", "this network"],
  ["10.0.0.0/8", "private use"],
  ["100.64.0.0/10", "shared address space (carrier-grade NAT)"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link local"],
  ["172.16.0.0/12", "private use"],
  ["192.0.0.0/24", "IETF protocol assignments"],
  ["192.0.2.0/24", "documentation (TEST-NET-1)"],
  ["192.88.99.0/24", "deprecated 6to4 relay anycast"],
  ["192.168.0.0/16", "private use"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation (TEST-NET-2)"],
  ["203.0.113.0/24", "documentation (TEST-NET-3)"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved, and 255.255.255.255 limited broadcast"],

  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["::ffff:0:0/96", "IPv4-mapped (parsing answers these as IPv4)"],
  ["64:ff9b::/96", "IPv4/IPv6 translation: the address behind it is IPv4"],
  ["64:ff9b:1::/48", "local-use IPv4/IPv6 translation"],
  ["100::/64", "discard only"],
  ["2001::/23", "IETF protocol assignments, incl. Teredo 2001::/32 and benchmarking 2001:2::/48"],
  ["2001:db8::/32", "documentation"],
  ["2002::/16", "6to4: the address behind it is IPv4"],
  ["3fff::/20", "documentation"],
  ["5f00::/16", "segment routing SIDs"],
  ["fc00::/7", "unique local"],
  ["fe80::/10", "link-local unicast"],
  ["fec0::/10", "deprecated site-local"],
  ["ff00::/8", "multicast"],
  ["::/3", "outside 2000::/3: not global unicast"],
  ["4000::/2", "outside 2000::/3: not global unicast"],
  ["8000::/1", "outside 2000::/3: not global unicast"],
];

/** Blocks inside the ones above that the registries mark globally reachable. */
const GLOBALLY_REACHABLE: readonly (readonly [cidr: string, name: string])[] = [
  ["192.0.0.9/32", "Port Control Protocol anycast"],
  ["192.0.0.10/32", "TURN anycast"],
  ["2001:1::1/128", "Port Control Protocol anycast"],
  ["2001:1::2/128", "TURN anycast"],
  ["2001:1::3/128", "DNS-SD service registration protocol anycast"],
  ["2001:3::/32", "AMT"],
  ["2001:4:112::/48", "AS112-v6"],
  ["2001:20::/28", "ORCHIDv2"],
  ["2001:30::/28", "drone remote ID entity tags"],
];

interface SpecialSpace {
  readonly ranges: readonly AddressRange[];
  readonly index: RangeIndex;
}
let special: SpecialSpace | undefined;

/** Worked out at the first question (some 40 ms of CPU): a command that asks none starts without it. */
function specialSpace(): SpecialSpace {
  if (special) return special;
  const ranges = subtractRanges(
    NOT_GLOBAL.map(([cidr]) => rangeOfCidr(cidr)),
    GLOBALLY_REACHABLE.map(([cidr]) => rangeOfCidr(cidr)),
  );
  const builder = new RangeIndexBuilder<true>();
  for (const r of ranges) builder.add(r, true);
  special = {
    ranges,
    index: new RangeIndex(
      builder.build(
        () => true,
        () => 0,
      ),
    ),
  };
  return special;
}

/**
 * The exact special-purpose space of one IP version as the fewest CIDR blocks, sorted: feed
 * ingest clips entries that overlap it.
 */
export function specialPurposeCidrs(version: 4 | 6): string[] {
  return specialSpace()
    .ranges.filter((r) => r.version === version)
    .flatMap(cidrsOfRange);
}

/** False for every address in special-purpose space (see specialPurposeCidrs). */
export function isGlobalUnicast(ip: ParsedIp): boolean {
  return specialSpace().index.lookup(ip) === NOT_FOUND;
}

/**
 * What special-purpose space the whole range is ("private use", "documentation (TEST-NET-3)",
 * or "special-purpose" where it spans several blocks), or null when any of it is global unicast.
 */
export function specialPurposeName(range: AddressRange): string | null {
  if (subtractRanges([range], specialSpace().ranges).length > 0) return null;
  const within = NOT_GLOBAL.find(([cidr]) => {
    const block = rangeOfCidr(cidr);
    return block.version === range.version && block.first <= range.first && range.last <= block.last;
  });
  return within?.[1] ?? "special-purpose";
}
