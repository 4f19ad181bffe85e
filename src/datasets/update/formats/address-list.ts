import { parseCidr } from "../../../ip/address/address-range.ts";
import { checkRejects, headerDate, listText } from "./content-checks.ts";
import type { FeedEntry } from "./feed-entry.ts";
import type { ParsedSource } from "./parsed-source.ts";
import { IP_FEED_TARGETS, MB, ipListFormat } from "./source-format.ts";

/**
 * One address or CIDR per line (FireHOL .netset/.ipset, Spamhaus DROP, X4BNet,
 * blocklist.de …): `#` and `;` start comments, anything after the first blank on a
 * line is ignored, and an optional second column `<TAB>count` (ipsum) sets the count.
 */
export function parseAddressList(bytes: Uint8Array): ParsedSource<FeedEntry[]> {
  const text = listText(bytes, "a list of IP addresses or CIDRs");
  const entries: FeedEntry[] = [];
  let rejected = 0;
  let firstRejected: string | undefined;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "" || line[0] === "#" || line[0] === ";") continue;
    const [first, second] = line.split(/\s+/, 2);
    const cidr = parseCidr(first);
    const count = second === undefined || !/^\d{1,9}$/.test(second) ? 1 : Number(second);
    if (cidr === null || count === 0) {
      if (rejected++ === 0) firstRejected = `line ${i + 1}`;
      continue;
    }
    entries.push({ range: cidr, count });
  }
  checkRejects(entries.length, rejected, firstRejected, "IP addresses or CIDRs");
  return { value: entries, entries: entries.length, dataDate: headerDate(text) };
}

/** An 8 MB plain list (620,000 addresses; 377 MB peak of update) is four times ipsum (1.9 MB). */
export const ADDRESS_LIST_FORMAT = ipListFormat({
  name: "address-list",
  targets: IP_FEED_TARGETS,
  maxBytes: 8 * MB,
  labels: false,
  parse: parseAddressList,
});
