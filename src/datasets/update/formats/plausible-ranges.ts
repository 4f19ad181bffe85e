import type { AddressRange } from "../../../ip/address/address-range.ts";
import { ContentError } from "./parsed-source.ts";

/** What a publisher's list of its own ranges can hold: how many prefixes, and none broader than these. */
export interface Plausible {
  readonly minEntries: number;
  readonly maxEntries: number;
  /** Shortest prefix length accepted, per IP version. */
  readonly broadestV4: number;
  readonly broadestV6: number;
}

/**
 * Refuses a list of published ranges that cannot be the publisher's: too few or too
 * many prefixes, or a prefix broader than any it publishes (a crawler file carrying
 * 0.0.0.0/1 would cap half the Internet).
 */
export function checkPlausible(ranges: readonly AddressRange[], p: Plausible, what: string): void {
  if (ranges.length < p.minEntries || ranges.length > p.maxEntries) {
    throw new ContentError(`has ${ranges.length} prefixes; ${what} holds ${p.minEntries} to ${p.maxEntries}`);
  }
  for (const range of ranges) {
    const broadest = range.version === 4 ? p.broadestV4 : p.broadestV6;
    const width = range.version === 4 ? 32 : 128;
    if (range.last - range.first >= 1n << BigInt(width - broadest)) {
      throw new ContentError(
        `lists a range broader than /${broadest} (IPv${range.version}); ${what} publishes nothing that wide`,
      );
    }
  }
}

/**
 * Lists that cap a verdict (verified crawlers, privacy relays, anycast edges) must be
 * what their publishers put out: a few thousand narrow prefixes for a crawler, relay
 * exits of at most a /12, anycast edges of at most a /12 (Cloudflare's widest is a /13).
 */
export const CAPPING_TARGETS: Readonly<Record<string, Plausible>> = {
  "verified-crawler": { minEntries: 1, maxEntries: 20_000, broadestV4: 16, broadestV6: 32 },
  relay: { minEntries: 1, maxEntries: 5_000_000, broadestV4: 12, broadestV6: 24 },
  anycast: { minEntries: 1, maxEntries: 10_000, broadestV4: 12, broadestV6: 24 },
};
