import type { Cidr } from "./cidr.ts";
import type { ParsedIp } from "./parse.ts";
import { RangeIndexBuilder } from "./range-index-builder.ts";
import type { IndexFile } from "./range-index-file.ts";
import { NOT_FOUND, RangeIndex } from "./range-index.ts";
import type { Counters } from "./reputation.ts";

/** Bits above the kind bits (0–6) in an entry's flags word. */
export const FLAG = Object.freeze({ confirmedBad: 1 << 8, verifiedCrawler: 1 << 9, allowlisted: 1 << 10, anycast: 1 << 11 });

export const COUNTER_NAMES = ["bot", "probe", "rate", "attack", "crawler"] as const;
export type CounterName = (typeof COUNTER_NAMES)[number];

/** What one list says about one range. */
export interface Contribution {
  readonly source: string;
  readonly counters?: Partial<Counters>;
  /** Kind bits and FLAG bits. */
  readonly flags?: number;
}

// Per entry: bot, probe, rate, attack, crawler, flags, index of its source set.
const STRIDE = 7;

/** Merges every list's ranges: counters add up, kinds and flags combine, sources are remembered. */
export class ReputationIndexBuilder {
  private readonly ranges = new RangeIndexBuilder<Contribution>();

  add(version: 4 | 6, start: bigint, end: bigint, contribution: Contribution): void {
    this.ranges.add(version, start, end, contribution);
  }

  addCidr(cidr: Cidr, contribution: Contribution): void {
    this.ranges.addCidr(cidr, contribution);
  }

  build(meta: Record<string, unknown> = {}): IndexFile {
    const sources: string[] = [];
    const sourceSets: number[][] = [];
    const sourceSetIds = new Map<string, number>();
    const entries = new Map<string, number>();
    const payload: number[] = [];
    const columns = this.ranges.build(
      (contributions) => contributions,
      (contributions) => {
        const sum = [0, 0, 0, 0, 0];
        let flags = 0;
        const ids = new Set<number>();
        for (const c of contributions) {
          COUNTER_NAMES.forEach((name, i) => (sum[i] += c.counters?.[name] ?? 0));
          flags |= c.flags ?? 0;
          let id = sources.indexOf(c.source);
          if (id === -1) id = sources.push(c.source) - 1;
          ids.add(id);
        }
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
    return { kind: "reputation", columns, payload: Uint32Array.from(payload), text: "", meta: { ...meta, sources, sourceSets } };
  }
}

/** Counters, kinds and flags per address range, from compiled feeds or curated lists. */
export class ReputationIndex {
  private readonly ranges: RangeIndex;
  private readonly payload: Uint32Array;
  private readonly sourceNames: readonly string[];
  private readonly sourceSets: readonly (readonly number[])[];

  constructor(file: IndexFile) {
    this.ranges = new RangeIndex(file.columns);
    this.payload = file.payload;
    this.sourceNames = (file.meta.sources as string[] | undefined) ?? [];
    this.sourceSets = (file.meta.sourceSets as number[][] | undefined) ?? [];
  }

  get rangeCount(): number {
    return this.ranges.size;
  }

  entryOf(ip: ParsedIp): number {
    return this.ranges.lookup(ip);
  }

  counter(entry: number, which: number): number {
    return this.payload[entry * STRIDE + which];
  }

  flags(entry: number): number {
    return entry === NOT_FOUND ? 0 : this.payload[entry * STRIDE + 5];
  }

  sources(entry: number): string[] {
    if (entry === NOT_FOUND) return [];
    return (this.sourceSets[this.payload[entry * STRIDE + 6]] ?? []).map((id) => this.sourceNames[id]);
  }
}

export function emptyReputationIndex(): IndexFile {
  return new ReputationIndexBuilder().build();
}
