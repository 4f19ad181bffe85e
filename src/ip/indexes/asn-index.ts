import type { AddressRange } from "../address/address-range.ts";
import { RangeIndexBuilder } from "./range-index-builder.ts";
import type { IndexFile } from "./range-index-file.ts";
import { RangeIndex } from "./range-index.ts";
import type { ParsedIp } from "../address/parse.ts";

export interface AsnRange extends AddressRange {
  readonly asn: number;
  readonly organization: string;
}

/** Builds the ASN index file contents: ranges → (ASN, organisation) entries, deduplicated. */
export function compileAsnIndex(rows: Iterable<AsnRange>, meta: Record<string, unknown>): IndexFile {
  const entries = new Map<string, number>();
  const payload: number[] = [];
  let text = "";
  const builder = new RangeIndexBuilder<number>();
  for (const row of rows) {
    const key = `${row.asn}\u0000${row.organization}`;
    let entry = entries.get(key);
    if (entry === undefined) {
      entry = entries.size;
      entries.set(key, entry);
      payload.push(row.asn, text.length, text.length + row.organization.length);
      text += row.organization;
    }
    builder.add(row, entry);
  }
  const columns = builder.build(
    (entriesHere) => entriesHere[entriesHere.length - 1],
    (entry) => entry,
  );
  return { kind: "asn", columns, payload: Uint32Array.from(payload), text, meta };
}

/**
 * Network owner lookup from the compiled ASN file. Organisation names stay in the
 * file's one text until asked for: ninety thousand strings fewer for the collector.
 */
export class AsnIndex {
  private readonly ranges: RangeIndex;
  /** Per entry: ASN, start and end of the organisation in `text`. */
  private readonly payload: Uint32Array;
  private readonly text: string;

  constructor(file: IndexFile) {
    this.ranges = new RangeIndex(file.columns);
    this.payload = file.payload;
    this.text = file.text;
  }

  get entryCount(): number {
    return this.payload.length / 3;
  }

  get rangeCount(): number {
    return this.ranges.size;
  }

  /** The entry (ASN and organisation) of the network holding the address, or NOT_FOUND. */
  entryOf(ip: ParsedIp): number {
    return this.ranges.lookup(ip);
  }

  asn(entry: number): number {
    return this.payload[entry * 3];
  }

  organization(entry: number): string {
    return this.text.slice(this.payload[entry * 3 + 1], this.payload[entry * 3 + 2]);
  }
}
