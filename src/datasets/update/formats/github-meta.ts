import { type AddressRange, parseCidr } from "../../../ip/address/address-range.ts";
import { jsonObject } from "./content-checks.ts";
import type { FeedEntry } from "./feed-entry.ts";
import { checkPlausible } from "./plausible-ranges.ts";
import { ContentError, type ParsedSource } from "./parsed-source.ts";
import { INFRASTRUCTURE_TARGETS, MB, ipListFormat } from "./source-format.ts";

const WHAT = "GitHub's api.github.com/meta";

/**
 * GitHub's `meta` API answer: named lists of CIDRs (`hooks`, `web`, `api`, `git`,
 * `actions`, `pages`, `copilot` …) beside keys and fingerprints. Every top-level array
 * whose members are all CIDRs is a list of ranges (new services appear without notice);
 * a range is labelled with every list that names it: "GitHub hooks, web". The file
 * carries no date.
 */
export function parseGithubMeta(bytes: Uint8Array): ParsedSource<FeedEntry[]> {
  const document = jsonObject(bytes, WHAT);
  const lists = new Map<string, { range: AddressRange; names: string[] }>();
  for (const [name, value] of Object.entries(document)) {
    if (!Array.isArray(value) || value.length === 0) continue;
    const ranges = value.map((v) => (typeof v === "string" ? parseCidr(v) : null));
    if (ranges.some((r) => r === null)) continue;
    value.forEach((cidr: string, i) => {
      const known = lists.get(cidr) ?? { range: ranges[i]!, names: [] };
      known.names.push(name);
      lists.set(cidr, known);
    });
  }
  if (lists.size === 0)
    throw new ContentError(`has no lists of CIDRs: expected ${WHAT}, {"hooks":["192.30.252.0/22",…],"web":[…],…}`);
  const entries = [...lists.values()].map(({ range, names }) => ({
    range,
    count: 1,
    label: `GitHub ${names.join(", ")}`,
  }));
  checkPlausible(
    entries.map((e) => e.range),
    { minEntries: 1, maxEntries: 100_000, broadestV4: 8, broadestV6: 16 },
    WHAT,
  );
  return { value: entries, entries: entries.length, dataDate: null };
}

export const GITHUB_META_FORMAT = ipListFormat({
  name: "github-meta",
  targets: INFRASTRUCTURE_TARGETS,
  maxBytes: 8 * MB,
  labels: true,
  parse: parseGithubMeta,
});
