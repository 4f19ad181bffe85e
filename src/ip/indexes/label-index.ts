import type { AddressRange } from "../address/address-range.ts";
import type { ParsedIp } from "../address/parse.ts";
import { RangeIndexBuilder } from "./range-index-builder.ts";
import type { IndexFile } from "./range-index-file.ts";
import { NOT_FOUND, RangeIndex } from "./range-index.ts";

/** What a publisher says one of its ranges is for: the list, and its words ("AWS us-east-1 EC2"). */
export interface RangeLabel {
  readonly source: string;
  readonly label: string;
}

/** Every label of every range, from the lists that name their ranges (clouds, CDNs, GitHub). */
export class LabelIndexBuilder {
  private readonly ranges = new RangeIndexBuilder<RangeLabel>();

  add(range: AddressRange, label: RangeLabel): void {
    this.ranges.add(range, label);
  }

  build(meta: Record<string, unknown> = {}): IndexFile {
    const sets: [string, string][][] = [];
    const ids = new Map<string, number>();
    const columns = this.ranges.build(
      (labels) => {
        const seen = new Set<string>();
        return labels
          .map((l): [string, string] => [l.source, l.label])
          .filter(([source, label]) => !seen.has(`${source}\n${label}`) && !!seen.add(`${source}\n${label}`));
      },
      (set) => {
        const key = JSON.stringify(set);
        let id = ids.get(key);
        if (id === undefined) {
          id = sets.push(set) - 1;
          ids.set(key, id);
        }
        return id;
      },
    );
    return {
      kind: "labels",
      columns,
      payload: Uint32Array.from(sets.keys()),
      text: new Uint8Array(0),
      meta: { ...meta, sets },
    };
  }
}

/** Labels per range, for explanations. */
export class LabelIndex {
  private readonly ranges: RangeIndex;
  private readonly sets: readonly (readonly RangeLabel[])[];

  constructor(file: IndexFile) {
    this.ranges = new RangeIndex(file.columns);
    this.sets = ((file.meta.sets as [string, string][][] | undefined) ?? []).map((set) =>
      set.map(([source, label]) => ({ source, label })),
    );
  }

  get size(): number {
    return this.ranges.size;
  }

  lookup(ip: ParsedIp): readonly RangeLabel[] {
    const entry = this.ranges.lookup(ip);
    return entry === NOT_FOUND ? [] : this.sets[entry];
  }
}

export const NO_LABELS = new LabelIndex(new LabelIndexBuilder().build());
