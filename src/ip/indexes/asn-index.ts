import type { AddressRange } from "../address/address-range.ts";
import { NAME_RULES, kindsInName } from "../verdict/network-kinds.ts";
import { RangeIndexBuilder } from "./range-index-builder.ts";
import type { IndexFile } from "./range-index-file.ts";
import { RangeIndex } from "./range-index.ts";
import { Utf8Text } from "./utf8-text.ts";
import type { ParsedIp } from "../address/parse.ts";

export interface AsnRange extends AddressRange {
  readonly asn: number;
  readonly organization: string;
}

/** What the index's meta says its organisations' names say (`kindsInName`, one byte per entry, base64), under which rules. */
interface NameKindsMeta {
  readonly rules: number;
  readonly bytes: string;
}

/**
 * Builds the ASN index file contents: ranges → (ASN, organisation) entries, deduplicated,
 * with what each organisation's name says of its network's kinds.
 */
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
  const nameKinds = new Uint8Array(entries.size);
  for (let entry = 0; entry < nameKinds.length; entry++)
    nameKinds[entry] = kindsInName(text.slice(payload[entry * 3 + 1], payload[entry * 3 + 2]));
  const names: NameKindsMeta = { rules: NAME_RULES, bytes: Buffer.from(nameKinds).toString("base64") };
  return {
    kind: "asn",
    columns,
    payload: Uint32Array.from(payload),
    text: new TextEncoder().encode(text),
    meta: { ...meta, nameKinds: names },
  };
}

/** Whether the index carries what its names say under the patterns in force (`update` builds anew one that does not). */
export function hasCurrentNameKinds(file: Pick<IndexFile, "meta">): boolean {
  return (file.meta.nameKinds as NameKindsMeta | undefined)?.rules === NAME_RULES;
}

/**
 * Network owner lookup from the compiled ASN file. Organisation names stay in the
 * file's one text until asked for: ninety thousand strings fewer for the collector.
 */
export class AsnIndex {
  private readonly ranges: RangeIndex;
  /** Per entry: ASN, start and end (UTF-16 offsets) of the organisation in `text`. */
  private readonly payload: Uint32Array;
  private readonly text: Utf8Text;
  private readonly meta: Record<string, unknown>;

  constructor(file: IndexFile) {
    this.ranges = new RangeIndex(file.columns);
    this.payload = file.payload;
    this.text = new Utf8Text(file.text);
    this.meta = file.meta;
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

  /**
   * What each entry's organisation name says of its kinds (`kindsInName`), as `update` compiled it, or read now from
   * an index compiled without it or under other rules.
   */
  nameKinds(): Uint8Array {
    return (
      compiledNameKinds(this.meta, this.entryCount) ??
      Uint8Array.from({ length: this.entryCount }, (_, entry) => kindsInName(this.organization(entry)))
    );
  }
}

/** `nameKinds` read from the file without opening the index: a load that only hands them on builds no lookup tables. */
export function asnNameKinds(file: IndexFile): Uint8Array {
  return compiledNameKinds(file.meta, file.payload.length / 3) ?? new AsnIndex(file).nameKinds();
}

function compiledNameKinds(meta: Record<string, unknown>, entryCount: number): Uint8Array | null {
  if (!hasCurrentNameKinds({ meta })) return null;
  const bytes = Buffer.from((meta.nameKinds as NameKindsMeta).bytes, "base64");
  return bytes.length === entryCount ? new Uint8Array(bytes) : null;
}
