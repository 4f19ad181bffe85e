import { arrayAt, jsonObject } from "./content-checks.ts";
import type { FeedEntry } from "./feed-entry.ts";
import type { ParsedSource } from "./parsed-source.ts";
import { RangeEntries } from "./range-entries.ts";
import { INFRASTRUCTURE_TARGETS, MB, ipListFormat } from "./source-format.ts";

const WHAT = "Fastly's public-ip-list";

/** Fastly's `api.fastly.com/public-ip-list`: `{"addresses": [IPv4 CIDRs], "ipv6_addresses": [IPv6 CIDRs]}`, no date. */
export function parseFastlyIpList(bytes: Uint8Array): ParsedSource<FeedEntry[]> {
  const document = jsonObject(bytes, WHAT);
  const ranges = new RangeEntries();
  for (const key of ["addresses", "ipv6_addresses"]) {
    for (const [i, cidr] of arrayAt(document, key).entries()) ranges.add(cidr, `${key}[${i}]`, "Fastly edge");
  }
  const entries = ranges.checked(WHAT, '{"addresses":[…],"ipv6_addresses":[…]}', "CIDRs", 1_000);
  return { value: entries, entries: entries.length, dataDate: null };
}

export const FASTLY_IP_LIST_FORMAT = ipListFormat({
  name: "fastly-ip-list",
  targets: INFRASTRUCTURE_TARGETS,
  maxBytes: 1 * MB,
  labels: true,
  parse: parseFastlyIpList,
});
