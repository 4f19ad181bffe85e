import { type AddressRange, rangeOfCidr, subtractRanges } from "../../ip/address/address-range.ts";
import { specialPurposeCidrs } from "../../ip/address/special-purpose.ts";
import type { FeedEntry } from "./formats/feed-entry.ts";

const SPECIAL: readonly AddressRange[] = [...specialPurposeCidrs(4), ...specialPurposeCidrs(6)].map(rangeOfCidr);

/**
 * Feeds never speak for special-purpose space (FireHOL level 1 lists 10.0.0.0/8):
 * entries are cut to their global-unicast parts. Returns the entries that remain
 * and how many were cut or dropped, for the update summary.
 */
export function clipSpecialPurpose(entries: readonly FeedEntry[]): { entries: readonly FeedEntry[]; clipped: number } {
  // A list none of whose entries touches special-purpose space is returned as it is.
  let kept: FeedEntry[] | null = null;
  let clipped = 0;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (!touchesSpecialPurpose(entry.range)) {
      kept?.push(entry);
      continue;
    }
    kept ??= entries.slice(0, i);
    const pieces = subtractRanges([entry.range], SPECIAL);
    if (pieces.length !== 1 || pieces[0].first !== entry.range.first || pieces[0].last !== entry.range.last) clipped++;
    for (const range of pieces) kept.push({ ...entry, range });
  }
  return { entries: kept ?? entries, clipped };
}

/** Whether a range touches special-purpose space (private, loopback, documentation …). */
export function touchesSpecialPurpose(range: AddressRange): boolean {
  return SPECIAL.some((s) => overlaps(s, range));
}

function overlaps(a: AddressRange, b: AddressRange): boolean {
  return a.version === b.version && a.first <= b.last && b.first <= a.last;
}
