import { parseCidr } from "../../ip/cidr.ts";
import { cidrBounds } from "../../ip/range-index-builder.ts";
import type { FeedEntry, ParsedFeed } from "./feed-entry.ts";

/**
 * One address or CIDR per line (FireHOL .netset/.ipset, Spamhaus DROP, X4BNet,
 * blocklist.de …): `#` and `;` start comments, anything after the first blank on a
 * line is ignored, and an optional second column `<TAB>count` (ipsum) sets the count.
 */
export function parseAddressList(text: string): ParsedFeed {
  const entries: FeedEntry[] = [];
  let unreadable = 0;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line[0] === "#" || line[0] === ";") continue;
    const [first, second] = line.split(/\s+/, 2);
    const cidr = parseCidr(first);
    const count = second === undefined || !/^\d{1,9}$/.test(second) ? 1 : Number(second);
    if (cidr === null || count === 0) {
      unreadable++;
      continue;
    }
    const { version, start, end } = cidrBounds(cidr);
    entries.push({ range: { version, first: start, last: end }, count });
  }
  return { entries, unreadable };
}
