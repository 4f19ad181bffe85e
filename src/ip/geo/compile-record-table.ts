import { type OpenedMmdb, checkedRecords } from "./mmdb.ts";
import { MmdbTree } from "./mmdb-tree.ts";
import { type RecordTableFile, STRINGS_PER_CHUNK, encodeRecordTableFile } from "./record-table-file.ts";

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
  const encoder = new TextEncoder();
  const stringEnds: number[] = [];
  const chunkEnds: number[] = [];
  const chunks: Uint8Array[] = [];
  let pending: string[] = [];
  let codeUnits = 0;
  let poolBytes = 0;
  const seal = () => {
    const chunk = encoder.encode(pending.join(""));
    chunks.push(chunk);
    poolBytes += chunk.byteLength;
    chunkEnds.push(poolBytes);
    pending = [];
    codeUnits = 0;
  };
  for (let ordinal = 0; ordinal < count; ordinal++) {
    const strings = columns.of(records.decode(ordinal));
    for (let column = 0; column < columns.count; column++) {
      const value = strings[column];
      let number = numberOf.get(value);
      if (number === undefined) {
        numberOf.set(value, (number = stringEnds.length));
        codeUnits += value.length;
        stringEnds.push(codeUnits);
        pending.push(value);
        if (pending.length === STRINGS_PER_CHUNK) seal();
      }
      cells[ordinal * columns.count + column] = number;
    }
  }
  if (pending.length > 0) seal();
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
    stringEnds: Uint32Array.from(stringEnds),
    chunkEnds: Uint32Array.from(chunkEnds),
    pool,
    meta: { databaseType: mmdb.databaseType, buildDate: mmdb.buildDate },
  };
}

/** The compiled file's bytes. */
export function compileRecordTableBytes(mmdb: OpenedMmdb, columns: TableColumns): Uint8Array {
  return encodeRecordTableFile(compileRecordTable(mmdb, columns));
}
