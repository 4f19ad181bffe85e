import { parseCidr } from "../../../ip/address/address-range.ts";
import { arrayAt, checkRejects, jsonObject } from "./content-checks.ts";
import type { FeedEntry } from "./feed-entry.ts";
import { checkPlausible } from "./plausible-ranges.ts";
import { ContentError, type ParsedSource } from "./parsed-source.ts";

const WHAT = "Fastly's public-ip-list";

/** Fastly's `api.fastly.com/public-ip-list`: `{"addresses": [IPv4 CIDRs], "ipv6_addresses": [IPv6 CIDRs]}`, no date. */
export function parseFastlyIpList(bytes: Uint8Array): ParsedSource<FeedEntry[]> {
  const document = jsonObject(bytes, WHAT);
  const entries: FeedEntry[] = [];
  let rejected = 0;
  let firstRejected: string | undefined;
  for (const key of ["addresses", "ipv6_addresses"]) {
    for (const [i, cidr] of arrayAt(document, key).entries()) {
      const range = typeof cidr === "string" ? parseCidr(cidr) : null;
      if (range === null) {
        if (rejected++ === 0) firstRejected = `${key}[${i}]`;
        continue;
      }
      entries.push({ range, count: 1, label: "Fastly edge" });
    }
  }
  if (entries.length === 0) throw new ContentError(`has no prefixes: expected ${WHAT}, {"addresses":[…],"ipv6_addresses":[…]}`);
  checkRejects(entries.length, rejected, firstRejected, "CIDRs");
  checkPlausible(entries.map((e) => e.range), { minEntries: 1, maxEntries: 1_000, broadestV4: 8, broadestV6: 16 }, WHAT);
  return { value: entries, entries: entries.length, dataDate: null };
}
