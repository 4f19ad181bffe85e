import type { AddressRange } from "../address/address-range.ts";
import type { ParsedIp } from "../address/parse.ts";
import { RangeIndexBuilder } from "./range-index-builder.ts";
import type { IndexFile } from "./range-index-file.ts";
import { NOT_FOUND, RangeIndex } from "./range-index.ts";
import type { Counters } from "../verdict/reputation.ts";
import { COUNTER_NAMES, type Listing, type ReportingSource, countersOf } from "../verdict/report-counting.ts";

/** Bits above the kind bits (0–6) in an entry's flags word. */
export const FLAG = Object.freeze({
  confirmedBad: 1 << 8,
  verifiedCrawler: 1 << 9,
  allowlisted: 1 << 10,
  anycast: 1 << 11,
  denylisted: 1 << 12,
  relay: 1 << 13,
});

/** What one list says about one range: a listing with its count (lists that feed a counter), or flags. */
export interface Contribution {
  readonly source: string;
  readonly count?: number;
  /** Kind bits and FLAG bits. */
  readonly flags?: number;
}

// Per entry: bot, probe, rate, attack, crawler, flags, index of its source set.
const STRIDE = 7;

/**
 * Merges every list's ranges: listings become the counters of independent reports
 * (`countersOf`, with each list's category, weight and inclusions), kinds and flags
 * combine, sources are remembered.
 */
export class ReputationIndexBuilder {
  private readonly ranges = new RangeIndexBuilder<Contribution>();

  add(range: AddressRange, contribution: Contribution): void {
    this.ranges.add(range, contribution);
  }

  build(meta: Record<string, unknown> = {}, reporting: ReadonlyMap<string, ReportingSource> = new Map()): IndexFile {
    const sources: string[] = [];
    /** What each list means: its kind and flag bits. */
    const sourceFlags: number[] = [];
    const sourceSets: number[][] = [];
    const sourceSetIds = new Map<string, number>();
    const entries = new Map<string, number>();
    const payload: number[] = [];
    const columns = this.ranges.build(
      (contributions) => contributions,
      (contributions) => {
        const listings: Listing[] = [];
        let flags = 0;
        const ids = new Set<number>();
        for (const c of contributions) {
          if (c.count !== undefined) addListing(listings, c.source, c.count);
          flags |= c.flags ?? 0;
          let id = sources.indexOf(c.source);
          if (id === -1) id = sources.push(c.source) - 1;
          sourceFlags[id] = (sourceFlags[id] ?? 0) | (c.flags ?? 0);
          ids.add(id);
        }
        const counters = countersOf(listings, reporting);
        const sum = COUNTER_NAMES.map((name) => counters[name]);
        const set = [...ids].sort((a, b) => a - b);
        const setKey = set.join(",");
        let setId = sourceSetIds.get(setKey);
        if (setId === undefined) {
          setId = sourceSets.push(set) - 1;
          sourceSetIds.set(setKey, setId);
        }
        const key = `${sum.join(",")}|${flags}|${setId}`;
        let entry = entries.get(key);
        if (entry === undefined) {
          entry = entries.size;
          entries.set(key, entry);
          payload.push(...sum.map((n) => Math.min(n, 0xffffffff)), flags, setId);
        }
        return entry;
      },
    );
    return {
      kind: "reputation",
      columns,
      payload: Uint32Array.from(payload),
      text: new Uint8Array(0),
      meta: { ...meta, sources, sourceFlags, sourceSets, reporting: Object.fromEntries(reporting) },
    };
  }
}

/** Counters, kinds and flags per address range, from compiled feeds or curated lists. */
export class ReputationIndex {
  private readonly ranges: RangeIndex;
  private readonly payload: Uint32Array;
  private readonly sourceNames: readonly string[];
  private readonly sourceFlags: readonly number[];
  private readonly sourceSets: readonly (readonly number[])[];
  /** How each list that feeds a counter counts its listings, as the index was built with. */
  readonly reporting: ReadonlyMap<string, ReportingSource>;

  constructor(file: IndexFile) {
    this.ranges = new RangeIndex(file.columns);
    this.payload = file.payload;
    this.sourceNames = (file.meta.sources as string[] | undefined) ?? [];
    this.sourceFlags = (file.meta.sourceFlags as number[] | undefined) ?? [];
    this.sourceSets = (file.meta.sourceSets as number[][] | undefined) ?? [];
    this.reporting = new Map(
      Object.entries((file.meta.reporting as Record<string, ReportingSource> | undefined) ?? {}),
    );
  }

  get rangeCount(): number {
    return this.ranges.size;
  }

  entryOf(ip: ParsedIp): number {
    return this.ranges.lookup(ip);
  }

  /** The independent reports per category of an entry (not NOT_FOUND). */
  counters(entry: number): Counters {
    const p = this.payload;
    const at = entry * STRIDE;
    return { bot: p[at], probe: p[at + 1], rate: p[at + 2], attack: p[at + 3], crawler: p[at + 4] };
  }

  flags(entry: number): number {
    return entry === NOT_FOUND ? 0 : this.payload[entry * STRIDE + 5];
  }

  /** The lists that put the range there, each with its kind and flag bits. */
  sources(entry: number): { name: string; flags: number }[] {
    if (entry === NOT_FOUND) return [];
    return (this.sourceSets[this.payload[entry * STRIDE + 6]] ?? []).map((id) => ({
      name: this.sourceNames[id],
      flags: this.sourceFlags[id] ?? 0,
    }));
  }
}

/** A list that names the same range twice (Spamhaus DROP does) gives it the larger count once. */
function addListing(listings: Listing[], source: string, count: number): void {
  const at = listings.findIndex((l) => l.source === source);
  if (at === -1) listings.push({ source, count });
  else if (listings[at].count < count) listings[at] = { source, count };
}
