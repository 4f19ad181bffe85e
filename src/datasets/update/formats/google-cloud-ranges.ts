import { arrayAt, isoDate, jsonObject } from "./content-checks.ts";
import type { FeedEntry } from "./feed-entry.ts";
import type { ParsedSource } from "./parsed-source.ts";
import { RangeEntries } from "./range-entries.ts";
import { INFRASTRUCTURE_TARGETS, MB, ipListFormat } from "./source-format.ts";

const WHAT = "Google Cloud's cloud.json";

/**
 * Google Cloud's `cloud.json` (www.gstatic.com/ipranges/cloud.json): `{syncToken,
 * creationTime, prefixes: [{ipv4Prefix | ipv6Prefix, service, scope}]}`, the scope a
 * region; the label is "Google Cloud us-east1", the place "gcp:us-east1".
 */
export function parseGoogleCloudRanges(bytes: Uint8Array): ParsedSource<FeedEntry[]> {
  const document = jsonObject(bytes, WHAT);
  const ranges = new RangeEntries();
  for (const [i, item] of arrayAt(document, "prefixes").entries()) {
    const record = (item ?? {}) as Record<string, unknown>;
    const scope = typeof record.scope === "string" ? record.scope : "";
    const label = [typeof record.service === "string" ? record.service : "Google Cloud", scope]
      .filter(Boolean)
      .join(" ");
    // "global" (anycast load balancers) has no place.
    ranges.add(
      record.ipv4Prefix ?? record.ipv6Prefix,
      `prefixes[${i}]`,
      label,
      scope && scope !== "global" ? [`gcp:${scope}`] : [],
    );
  }
  const entries = ranges.checked(
    WHAT,
    '{"prefixes":[{"ipv4Prefix":…,"service":…,"scope":…}]}',
    "Google Cloud prefix records",
    50_000,
  );
  return {
    value: entries,
    entries: entries.length,
    dataDate: typeof document.creationTime === "string" ? isoDate(document.creationTime) : null,
  };
}

export const GOOGLE_CLOUD_RANGES_FORMAT = ipListFormat({
  name: "google-cloud-ranges",
  targets: INFRASTRUCTURE_TARGETS,
  maxBytes: 8 * MB,
  labels: true,
  alsoFeeds: ["declared-locations"],
  parse: parseGoogleCloudRanges,
});
