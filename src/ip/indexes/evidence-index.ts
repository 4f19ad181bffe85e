import type { AddressRange } from "../address/address-range.ts";
import type { ParsedIp } from "../address/parse.ts";
import { RangeIndexBuilder } from "./range-index-builder.ts";
import type { IndexFile } from "./range-index-file.ts";
import { NOT_FOUND, RangeIndex } from "./range-index.ts";

/** What one list says about an address, and since when this appliance has seen it say so. */
export interface Evidence {
  /** The listing's count (ipsum's number of lists; 1 for a plain list). */
  readonly count: number;
  /** When an update first saw this listing, in seconds since the epoch. */
  readonly firstSeen: number;
}

/** One list's listings, for explanations: ranges → (count, first seen). */
export class EvidenceIndexBuilder {
  private readonly ranges = new RangeIndexBuilder<Evidence>();
  /** One object per count and first-seen time, shared by the ranges that have them. */
  private readonly shared = new Map<number, Map<number, Evidence>>();

  add(range: AddressRange, { count, firstSeen }: Evidence): void {
    let byTime = this.shared.get(count);
    if (byTime === undefined) this.shared.set(count, (byTime = new Map()));
    let evidence = byTime.get(firstSeen);
    if (evidence === undefined) byTime.set(firstSeen, (evidence = { count, firstSeen }));
    this.ranges.add(range, evidence);
  }

  build(meta: Record<string, unknown> = {}): IndexFile {
    const entries = new Map<string, number>();
    const payload: number[] = [];
    const columns = this.ranges.build(
      // Where a list names a range twice: the larger count, seen since the earlier time.
      (all) => ({ count: Math.max(...all.map((e) => e.count)), firstSeen: Math.min(...all.map((e) => e.firstSeen)) }),
      ({ count, firstSeen }) => {
        const key = `${count}/${firstSeen}`;
        let entry = entries.get(key);
        if (entry === undefined) {
          entry = entries.size;
          entries.set(key, entry);
          payload.push(count, firstSeen);
        }
        return entry;
      },
    );
    return { kind: "evidence", columns, payload: Uint32Array.from(payload), text: new Uint8Array(0), meta };
  }
}

export class EvidenceIndex {
  private readonly ranges: RangeIndex;
  private readonly payload: Uint32Array;

  constructor(file: IndexFile) {
    this.ranges = new RangeIndex(file.columns);
    this.payload = file.payload;
  }

  get size(): number {
    return this.ranges.size;
  }

  lookup(ip: ParsedIp): Evidence | null {
    return this.evidence(this.ranges.lookup(ip));
  }

  /** The evidence at a range's first address: how a new download's entry inherits when it was first seen. */
  atStartOf(range: AddressRange): Evidence | null {
    if (range.version === 4) return this.evidence(this.ranges.lookupV4(Number(range.first)));
    const words = new Uint32Array(4);
    for (let i = 0; i < 4; i++) words[i] = Number((range.first >> BigInt(96 - 32 * i)) & 0xffffffffn);
    return this.evidence(this.ranges.lookupV6(words));
  }

  private evidence(entry: number): Evidence | null {
    return entry === NOT_FOUND ? null : { count: this.payload[entry * 2], firstSeen: this.payload[entry * 2 + 1] };
  }
}
