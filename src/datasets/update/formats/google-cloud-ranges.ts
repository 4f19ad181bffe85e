import { parseCidr } from "../../../ip/address/address-range.ts";
import { arrayAt, checkRejects, isoDate, jsonObject } from "./content-checks.ts";
import type { FeedEntry } from "./feed-entry.ts";
import { checkPlausible } from "./plausible-ranges.ts";
import { ContentError, type ParsedSource } from "./parsed-source.ts";

const WHAT = "Google Cloud's cloud.json";

/**
 * Google Cloud's `cloud.json` (www.gstatic.com/ipranges/cloud.json): `{syncToken,
 * creationTime, prefixes: [{ipv4Prefix | ipv6Prefix, service, scope}]}`, the scope a
 * region; the label is "Google Cloud us-east1".
 */
export function parseGoogleCloudRanges(bytes: Uint8Array): ParsedSource<FeedEntry[]> {
  const document = jsonObject(bytes, WHAT);
  const entries: FeedEntry[] = [];
  let rejected = 0;
  let firstRejected: string | undefined;
  for (const [i, item] of arrayAt(document, "prefixes").entries()) {
    const record = (item ?? {}) as Record<string, unknown>;
    const prefix = record.ipv4Prefix ?? record.ipv6Prefix;
    const range = typeof prefix === "string" ? parseCidr(prefix) : null;
    if (range === null) {
      if (rejected++ === 0) firstRejected = `prefixes[${i}]`;
      continue;
    }
    const label = [typeof record.service === "string" ? record.service : "Google Cloud", typeof record.scope === "string" ? record.scope : ""].filter(Boolean).join(" ");
    entries.push({ range, count: 1, label });
  }
  if (entries.length === 0) throw new ContentError(`has no prefixes: expected ${WHAT}, {"prefixes":[{"ipv4Prefix":…,"service":…,"scope":…}]}`);
  checkRejects(entries.length, rejected, firstRejected, "Google Cloud prefix records");
  checkPlausible(entries.map((e) => e.range), { minEntries: 1, maxEntries: 50_000, broadestV4: 8, broadestV6: 16 }, WHAT);
  return { value: entries, entries: entries.length, dataDate: typeof document.creationTime === "string" ? isoDate(document.creationTime) : null };
}
