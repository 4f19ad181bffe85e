import { type OpenedMmdb, checkedRecords } from "./mmdb.ts";
import { MmdbTree } from "./mmdb-tree.ts";
import { LATIN1, type RecordTableFile, STRINGS_PER_CHUNK, UTF8 } from "./record-table-file.ts";

const LATIN1_TEXT = /^[\x00-\xff]*$/;

/** What a table keeps of each record: the same number of strings for every record. */
export interface TableColumns {
  readonly count: number;
  of(record: Record<string, unknown>): readonly string[];
}

/**
 * Decodes and checks every record of the database (a damaged one throws a DatasetError
 * naming the file, as on load before), computes its strings once, and writes the table
 * `RecordTable` serves from. Runs in `update`, and in the loading Worker for a version
 * written before tables were compiled; never on the serving thread.
 */
export function compileRecordTable(mmdb: OpenedMmdb, columns: TableColumns): RecordTableFile {
  const records = checkedRecords(mmdb);
  const count = records.pointers.length;
  const cells = new Uint32Array(count * columns.count);
  const numberOf = new Map<string, number>();
  const strings: string[] = [];
  for (let ordinal = 0; ordinal < count; ordinal++) {
    const values = columns.of(records.decode(ordinal));
    for (let column = 0; column < columns.count; column++) {
      const value = values[column];
      let number = numberOf.get(value);
      if (number === undefined) numberOf.set(value, (number = strings.push(value) - 1));
      cells[ordinal * columns.count + column] = number;
    }
  }
  // Strings that fit Latin-1 first, so that all chunks but one hold one kind.
  const order = strings
    .map((_, i) => i)
    .sort((a, b) => Number(!LATIN1_TEXT.test(strings[a])) - Number(!LATIN1_TEXT.test(strings[b])) || a - b);
  const renumbered = new Uint32Array(strings.length);
  for (let to = 0; to < order.length; to++) renumbered[order[to]] = to;
  for (let i = 0; i < cells.length; i++) cells[i] = renumbered[cells[i]];

  const encoder = new TextEncoder();
  const stringEnds = new Uint32Array(strings.length);
  const chunkCount = Math.ceil(strings.length / STRINGS_PER_CHUNK);
  const chunkEnds = new Uint32Array(chunkCount);
  const chunkEncodings = new Uint8Array(chunkCount);
  const chunks: Uint8Array[] = [];
  let poolBytes = 0;
  for (let chunk = 0; chunk < chunkCount; chunk++) {
    const members = order.slice(chunk * STRINGS_PER_CHUNK, (chunk + 1) * STRINGS_PER_CHUNK).map((i) => strings[i]);
    let end = 0;
    for (let k = 0; k < members.length; k++) stringEnds[chunk * STRINGS_PER_CHUNK + k] = end += members[k].length;
    const text = members.join("");
    const latin1 = LATIN1_TEXT.test(text);
    const bytes = latin1 ? Buffer.from(text, "latin1") : encoder.encode(text);
    chunks.push(bytes);
    chunkEncodings[chunk] = latin1 ? LATIN1 : UTF8;
    chunkEnds[chunk] = poolBytes += bytes.byteLength;
  }
  const pool = new Uint8Array(poolBytes);
  let at = 0;
  for (const chunk of chunks) {
    pool.set(chunk, at);
    at += chunk.byteLength;
  }
  const { metadata } = mmdb.reader;
  const shape = { nodeCount: metadata.nodeCount, recordSize: metadata.recordSize, ipVersion: metadata.ipVersion };
  const tree = mmdb.tree.numberedCopy(records.pointers);
  return {
    shape,
    tree,
    // Walked again over the numbered tree: a leaf within the first 16 bits is a number too.
    jumps: new MmdbTree(tree, shape).jumpTables,
    columns: columns.count,
    recordCount: count,
    stringsPerChunk: STRINGS_PER_CHUNK,
    cells,
    stringEnds,
    chunkEnds,
    chunkEncodings,
    pool,
    meta: { databaseType: mmdb.databaseType, buildDate: mmdb.buildDate },
  };
}
