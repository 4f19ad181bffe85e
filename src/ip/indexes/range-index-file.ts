import { isUtf8 } from "node:buffer";
import { writeSectionedFile } from "../sectioned-file.ts";
import { DatasetError } from "../dataset-error.ts";
import { mapDataFile } from "../mapped-file.ts";
import {
  BUCKET_TABLE_LENGTH,
  type BucketTables,
  type RangeColumns,
  bucketTables,
  compareWords,
} from "./range-index.ts";

/**
 * One compiled index: the six range columns, a uint32 payload table, a UTF-8
 * text blob, a small JSON meta object and the two families' bucket tables (empty
 * below the size that has one). Layout: "RCIX", format version, kind, then eleven
 * (offset, byte length) pairs, then the sections, 8-byte aligned; a file from before
 * the bucket tables has the first nine. The columns, the
 * tables and the text are served as views of the mapped file, without parsing: a
 * load hands them from its Worker to the serving thread without a copy, and opens
 * the index without reading its ranges.
 */
export interface IndexFile {
  readonly kind: IndexKind;
  readonly columns: RangeColumns;
  readonly payload: Uint32Array;
  /** UTF-8 (`Utf8Text` reads it); empty for the kinds that keep their names in `meta`. */
  readonly text: Uint8Array;
  readonly meta: Record<string, unknown>;
}

const MAGIC = 0x58494352; // "RCIX" little-endian
const FORMAT_VERSION = 1;
/**
 * Sections 9 and 10, the bucket tables, are there when the stored meta's `bucketTables` is true, so that a riskcheck
 * from before them, which reads the first nine sections, still reads the file (put the old binary back). An index
 * without them makes its tables from its ranges when opened, until `update` writes it anew.
 */
const BUCKET_TABLES_MARK = "bucketTables";
const KINDS = ["asn", "reputation", "evidence", "labels", "places"] as const;
export type IndexKind = (typeof KINDS)[number];
/** Payload words per entry; a range's value is an entry number. */
const ENTRY_WORDS: Record<IndexKind, number> = { asn: 3, reputation: 7, evidence: 2, labels: 1, places: 1 };
const headerBytes = (sections: 9 | 11) => 12 + sections * 8;

export function encodeIndexFile(file: IndexFile): Uint8Array {
  const kind = KINDS.indexOf(file.kind);
  const c = file.columns;
  const buckets = bucketTables(c);
  const bytes = (a: Uint32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const sections: Uint8Array[] = [
    ...[c.v4Starts, c.v4Ends, c.v4Values, c.v6Starts, c.v6Ends, c.v6Values, file.payload].map(bytes),
    file.text,
    new TextEncoder().encode(JSON.stringify({ ...file.meta, [BUCKET_TABLES_MARK]: true })),
    bytes(buckets.v4 ?? new Uint32Array(0)),
    bytes(buckets.v6 ?? new Uint32Array(0)),
  ];
  return writeSectionedFile([MAGIC, FORMAT_VERSION, kind], sections);
}

/**
 * The index in `file` (a mapped file, or its bytes): the columns, payload and bucket tables are views of them,
 * checked, not copied. `ordered`: the caller knows the ranges' order, entry numbers, bucket tables and text were
 * checked on these very bytes before, so only the header, the sections' bounds and the meta are (the whole check
 * reads every range and every byte of the text).
 */
export function decodeIndexFile(
  file: ArrayBuffer | Uint8Array,
  path: string,
  expectedKind: IndexKind,
  ordered = false,
): IndexFile {
  const corrupt = (why: string) => new DatasetError(path, `corrupt index (${why})`);
  const bytes = file instanceof Uint8Array ? file : new Uint8Array(file);
  if (bytes.byteLength < headerBytes(9)) throw corrupt("shorter than its header");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw corrupt("not a riskcheck index file");
  if (view.getUint32(4, true) !== FORMAT_VERSION)
    throw corrupt(`format version ${view.getUint32(4, true)}, expected ${FORMAT_VERSION}`);
  const kind = KINDS[view.getUint32(8, true)];
  if (kind !== expectedKind) throw corrupt(`holds ${kind ?? "an unknown kind"}, expected ${expectedKind}`);
  const section = (i: number) => {
    const offset = view.getUint32(12 + i * 8, true);
    const length = view.getUint32(16 + i * 8, true);
    if (offset % 4 !== 0 || offset + length > bytes.byteLength) throw corrupt(`section ${i} out of bounds`);
    return { offset, length };
  };
  const words = (i: number) => {
    const { offset, length } = section(i);
    if (length % 4 !== 0) throw corrupt(`section ${i} is not whole words`);
    return new Uint32Array(bytes.buffer, bytes.byteOffset + offset, length / 4);
  };
  const sectionBytes = (i: number) => {
    const { offset, length } = section(i);
    return bytes.subarray(offset, offset + length);
  };
  const ranges = {
    v4Starts: words(0),
    v4Ends: words(1),
    v4Values: words(2),
    v6Starts: words(3),
    v6Ends: words(4),
    v6Values: words(5),
  };
  const n4 = ranges.v4Values.length;
  const n6 = ranges.v6Values.length;
  if (ranges.v4Starts.length !== n4 || ranges.v4Ends.length !== n4) throw corrupt("IPv4 columns differ in length");
  if (ranges.v6Starts.length !== n6 * 4 || ranges.v6Ends.length !== n6 * 4)
    throw corrupt("IPv6 columns differ in length");
  const payload = words(6);
  const stride = ENTRY_WORDS[kind];
  if (payload.length % stride !== 0) throw corrupt(`payload is not whole entries of ${stride} words`);
  const problem = ordered ? null : columnProblem(ranges, payload.length / stride);
  if (problem) throw corrupt(problem);
  const text = sectionBytes(7);
  if (!ordered && !isUtf8(text)) throw corrupt("its text is not UTF-8");
  let stored: Record<string, unknown>;
  try {
    stored = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(sectionBytes(8)));
  } catch (err) {
    throw corrupt((err as Error).message);
  }
  if (typeof stored !== "object" || stored === null) throw corrupt("its meta is not an object");
  const { [BUCKET_TABLES_MARK]: hasTables, ...meta } = stored;
  let columns: RangeColumns = ranges;
  if (hasTables === true) {
    if (bytes.byteLength < headerBytes(11)) throw corrupt("shorter than its header");
    const bucketTable = (i: number, family: string) => {
      const table = words(i);
      if (table.length !== 0 && table.length !== BUCKET_TABLE_LENGTH)
        throw corrupt(`its ${family} bucket table has ${table.length} entries, not ${BUCKET_TABLE_LENGTH}`);
      return table.length === 0 ? null : table;
    };
    const buckets = { v4: bucketTable(9, "IPv4"), v6: bucketTable(10, "IPv6") };
    const tableProblem = ordered ? null : bucketProblem(buckets, bucketTables(ranges));
    if (tableProblem) throw corrupt(tableProblem);
    columns = { ...ranges, buckets };
  }
  return { kind, columns, payload, text, meta };
}

/** Where the file's bucket tables differ from the ones its ranges make, or null. */
function bucketProblem(found: BucketTables, made: BucketTables): string | null {
  for (const [family, a, b] of [
    ["IPv4", found.v4, made.v4],
    ["IPv6", found.v6, made.v6],
  ] as const) {
    if ((a === null) !== (b === null)) return `its ${family} bucket table is ${a === null ? "missing" : "superfluous"}`;
    if (a !== null && b !== null) {
      for (let i = 0; i < a.length; i++)
        if (a[i] !== b[i]) return `its ${family} bucket table differs from its ranges at bucket ${i}`;
    }
  }
  return null;
}

/** What makes the columns unusable for a binary search, or null. */
function columnProblem(c: RangeColumns, entries: number): string | null {
  for (let i = 0; i < c.v4Values.length; i++) {
    if (c.v4Starts[i] > c.v4Ends[i] || (i > 0 && c.v4Starts[i] <= c.v4Ends[i - 1]))
      return `IPv4 range ${i} is out of order`;
    if (c.v4Values[i] >= entries) return `IPv4 range ${i} names entry ${c.v4Values[i]} of ${entries}`;
  }
  for (let i = 0; i < c.v6Values.length; i++) {
    const at = i * 4;
    if (
      compareWords(c.v6Starts, at, c.v6Ends, at) > 0 ||
      (i > 0 && compareWords(c.v6Starts, at, c.v6Ends, at - 4) <= 0)
    )
      return `IPv6 range ${i} is out of order`;
    if (c.v6Values[i] >= entries) return `IPv6 range ${i} names entry ${c.v6Values[i]} of ${entries}`;
  }
  return null;
}

/** The index file at `path`, mapped (`mapDataFile`); `ordered` as for `decodeIndexFile`. */
export async function readIndexFile(path: string, expectedKind: IndexKind, ordered = false): Promise<IndexFile> {
  return decodeIndexFile(mapDataFile(path).bytes, path, expectedKind, ordered);
}
