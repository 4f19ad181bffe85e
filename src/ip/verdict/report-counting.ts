import type { Counters } from "./reputation.ts";

export const COUNTER_NAMES = ["bot", "probe", "rate", "attack", "crawler"] as const;
export type CounterName = (typeof COUNTER_NAMES)[number];

/** How a list's listings count as reports. */
export interface ReportingSource {
  /** The counter its reports go to. */
  readonly category: CounterName;
  /** Reports one listing counts as (times the listing's own count, as ipsum's number of lists). */
  readonly weight: number;
  /** Lists whose reports this one already counts (an aggregator such as ipsum or FireHOL level 2). */
  readonly includes: readonly string[];
}

/** One list's word on an address: the list, and the count it gives (1 unless the format carries one). */
export interface Listing {
  readonly source: string;
  readonly count: number;
}

/**
 * The reports each listing adds, independent evidence counted once: a list counts
 * count × weight; an aggregator counts only what it reports beyond the reports its
 * included lists already gave for the same address (ipsum's 4 lists over blocklist.de's
 * one make 3 more, not 4). Listings of unknown sources count nothing.
 */
export function countedReports(listings: readonly Listing[], sources: ReadonlyMap<string, ReportingSource>): number[] {
  const counted = new Array<number>(listings.length).fill(-1);
  const countOf = (i: number, path: readonly string[]): number => {
    if (counted[i] >= 0) return counted[i];
    const { source, count } = listings[i];
    const meta = sources.get(source);
    if (!meta || path.includes(source)) return 0;
    let already = 0;
    for (const included of meta.includes) {
      const j = listings.findIndex((l) => l.source === included);
      if (j !== -1) already += countOf(j, [...path, source]);
    }
    counted[i] = Math.max(0, count * meta.weight - already);
    return counted[i];
  };
  return listings.map((_, i) => countOf(i, []));
}

/** The five counters of an address from its listings. */
export function countersOf(listings: readonly Listing[], sources: ReadonlyMap<string, ReportingSource>): Counters {
  const counters: Counters = { bot: 0, probe: 0, rate: 0, attack: 0, crawler: 0 };
  const counted = countedReports(listings, sources);
  listings.forEach((l, i) => {
    const meta = sources.get(l.source);
    if (meta) counters[meta.category] += counted[i];
  });
  return counters;
}
