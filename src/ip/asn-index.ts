import { RangeIndexBuilder } from "./range-index-builder.ts";
import { type IndexFile } from "./range-index-file.ts";
import { NOT_FOUND, RangeIndex } from "./range-index.ts";
import type { ParsedIp } from "./parse.ts";

export interface AsnRange {
  version: 4 | 6;
  start: bigint;
  end: bigint;
  asn: number;
  organization: string;
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
    builder.add(row.version, row.start, row.end, entry);
  }
  const columns = builder.build(
    (entriesHere) => entriesHere[entriesHere.length - 1],
    (entry) => entry,
  );
  return { kind: "asn", columns, payload: Uint32Array.from(payload), text, meta };
}

/** Who announces an address. */
export interface AsnRecord {
  readonly asn: number;
  readonly organization: string;
}

/** Network owner lookup from the compiled ASN file. */
export class AsnIndex {
  private readonly ranges: RangeIndex;
  private readonly asns: Uint32Array;
  readonly organizations: readonly string[];
  private readonly records: (AsnRecord | null)[];

  constructor(file: IndexFile) {
    this.ranges = new RangeIndex(file.columns);
    const count = file.payload.length / 3;
    this.asns = new Uint32Array(count);
    const organizations: string[] = new Array(count);
    for (let i = 0; i < count; i++) {
      this.asns[i] = file.payload[i * 3];
      organizations[i] = file.text.slice(file.payload[i * 3 + 1], file.payload[i * 3 + 2]);
    }
    this.organizations = organizations;
    this.records = new Array<AsnRecord | null>(count).fill(null);
  }

  get entryCount(): number {
    return this.asns.length;
  }

  get rangeCount(): number {
    return this.ranges.size;
  }

  /** The network holding the address, or null; one shared record per entry. */
  lookup(ip: ParsedIp): AsnRecord | null {
    const entry = this.ranges.lookup(ip);
    if (entry === NOT_FOUND) return null;
    return (this.records[entry] ??= Object.freeze({ asn: this.asns[entry], organization: this.organizations[entry] }));
  }

  /** The entry (ASN and organisation) of the network holding the address, or NOT_FOUND. */
  entryOf(ip: ParsedIp): number {
    return this.ranges.lookup(ip);
  }

  asn(entry: number): number {
    return this.asns[entry];
  }

  organization(entry: number): string {
    return this.organizations[entry];
  }
}

export { NOT_FOUND };
