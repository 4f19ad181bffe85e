import { arrayAt, isoDate, jsonObject } from "./content-checks.ts";
import type { FeedEntry } from "./feed-entry.ts";
import type { ParsedSource } from "./parsed-source.ts";
import { RangeEntries } from "./range-entries.ts";
import { INFRASTRUCTURE_TARGETS, MB, ipListFormat } from "./source-format.ts";

const WHAT = "Oracle Cloud's public_ip_ranges.json";

/**
 * Oracle Cloud Infrastructure's `public_ip_ranges.json`: `{last_updated_timestamp,
 * regions: [{region, cidrs: [{cidr, tags: ["OCI" | "OSN" | "OBJECT_STORAGE"]}]}]}`;
 * the label is "Oracle Cloud us-phoenix-1 OCI", the place "oracle:us-phoenix-1".
 */
export function parseOracleCloudRanges(bytes: Uint8Array): ParsedSource<FeedEntry[]> {
  const document = jsonObject(bytes, WHAT);
  const ranges = new RangeEntries();
  for (const [r, item] of arrayAt(document, "regions").entries()) {
    const region = (item ?? {}) as Record<string, unknown>;
    const name = typeof region.region === "string" ? region.region : "";
    for (const [i, cidrItem] of arrayAt(region, "cidrs").entries()) {
      const record = (cidrItem ?? {}) as Record<string, unknown>;
      const tags = Array.isArray(record.tags) ? record.tags.filter((t): t is string => typeof t === "string") : [];
      ranges.add(
        record.cidr,
        `regions[${r}].cidrs[${i}]`,
        ["Oracle Cloud", name, tags.join("/")].filter(Boolean).join(" "),
        name ? [`oracle:${name}`] : [],
      );
    }
  }
  const entries = ranges.checked(
    WHAT,
    '{"regions":[{"region":…,"cidrs":[{"cidr":…,"tags":[…]}]}]}',
    "Oracle Cloud CIDR records",
    50_000,
  );
  const stamp = document.last_updated_timestamp;
  return { value: entries, entries: entries.length, dataDate: typeof stamp === "string" ? isoDate(stamp) : null };
}

export const ORACLE_CLOUD_RANGES_FORMAT = ipListFormat({
  name: "oracle-cloud-ranges",
  targets: INFRASTRUCTURE_TARGETS,
  maxBytes: 8 * MB,
  labels: true,
  alsoFeeds: ["declared-locations"],
  parse: parseOracleCloudRanges,
});
