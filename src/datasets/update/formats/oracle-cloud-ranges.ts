import { parseCidr } from "../../../ip/address/address-range.ts";
import { arrayAt, checkRejects, isoDate, jsonObject } from "./content-checks.ts";
import type { FeedEntry } from "./feed-entry.ts";
import { checkPlausible } from "./plausible-ranges.ts";
import { ContentError, type ParsedSource } from "./parsed-source.ts";

const WHAT = "Oracle Cloud's public_ip_ranges.json";

/**
 * Oracle Cloud Infrastructure's `public_ip_ranges.json`: `{last_updated_timestamp,
 * regions: [{region, cidrs: [{cidr, tags: ["OCI" | "OSN" | "OBJECT_STORAGE"]}]}]}`;
 * the label is "Oracle Cloud us-phoenix-1 OCI".
 */
export function parseOracleCloudRanges(bytes: Uint8Array): ParsedSource<FeedEntry[]> {
  const document = jsonObject(bytes, WHAT);
  const entries: FeedEntry[] = [];
  let rejected = 0;
  let firstRejected: string | undefined;
  for (const [r, item] of arrayAt(document, "regions").entries()) {
    const region = (item ?? {}) as Record<string, unknown>;
    const name = typeof region.region === "string" ? region.region : "";
    for (const [i, cidrItem] of arrayAt(region, "cidrs").entries()) {
      const record = (cidrItem ?? {}) as Record<string, unknown>;
      const range = typeof record.cidr === "string" ? parseCidr(record.cidr) : null;
      if (range === null) {
        if (rejected++ === 0) firstRejected = `regions[${r}].cidrs[${i}]`;
        continue;
      }
      const tags = Array.isArray(record.tags) ? record.tags.filter((t): t is string => typeof t === "string") : [];
      entries.push({ range, count: 1, label: ["Oracle Cloud", name, tags.join("/")].filter(Boolean).join(" ") });
    }
  }
  if (entries.length === 0) throw new ContentError(`has no prefixes: expected ${WHAT}, {"regions":[{"region":…,"cidrs":[{"cidr":…,"tags":[…]}]}]}`);
  checkRejects(entries.length, rejected, firstRejected, "Oracle Cloud CIDR records");
  checkPlausible(entries.map((e) => e.range), { minEntries: 1, maxEntries: 50_000, broadestV4: 8, broadestV6: 16 }, WHAT);
  const stamp = document.last_updated_timestamp;
  return { value: entries, entries: entries.length, dataDate: typeof stamp === "string" ? isoDate(stamp) : null };
}
