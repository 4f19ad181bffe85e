import type { ParsedIp } from "../address/parse.ts";
import { MmdbTree, NO_RECORD } from "./mmdb-tree.ts";
import { LATIN1, type RecordTableFile } from "./record-table-file.ts";

/** No record for the address. */
export const NO_ORDINAL = -1;

/**
 * A compiled table, served: the tree walk gives the record's number, the number its
 * strings. Everything stays in the table's bytes (a mapped file): a Latin-1 string is made
 * from them when asked for, so the pool is never copied into the heap; the few chunks that
 * are UTF-8 (names beyond Latin-1) are decoded on opening.
 */
export class RecordTable {
  private readonly cells: Uint32Array;
  private readonly columns: number;
  private readonly stringEnds: Uint32Array;
  private readonly stringsPerChunk: number;
  readonly recordCount: number;

  private constructor(
    private readonly tree: MmdbTree,
    /** nodeCount + 16: a leaf minus this is the record's number. */
    private readonly leafBase: number,
    file: RecordTableFile,
    private readonly pool: Buffer,
    /** Per chunk, where its bytes start in the pool. */
    private readonly chunkStarts: Uint32Array,
    /** Per chunk, its text where it is UTF-8; undefined for a Latin-1 chunk, read from the pool. */
    private readonly decoded: readonly (string | undefined)[],
    /** By column, for those with few distinct values: each value made, by its string's number. */
    private readonly made: readonly (Map<number, string> | undefined)[],
  ) {
    this.cells = file.cells;
    this.columns = file.columns;
    this.stringEnds = file.stringEnds;
    this.stringsPerChunk = file.stringsPerChunk;
    this.recordCount = file.recordCount;
  }

  /**
   * Opens the table over its file's bytes. The strings of the `few` columns (a country: a few hundred
   * values) are made once each, when first read, so reading them again makes nothing.
   */
  static open(file: RecordTableFile, few: readonly number[] = []): RecordTable {
    const decoder = new TextDecoder();
    const pool = Buffer.from(file.pool.buffer, file.pool.byteOffset, file.pool.byteLength);
    const chunkStarts = new Uint32Array(file.chunkEnds.length);
    const decoded: (string | undefined)[] = [];
    for (let i = 0; i < file.chunkEnds.length; i++) {
      const start = i === 0 ? 0 : file.chunkEnds[i - 1];
      chunkStarts[i] = start;
      decoded.push(
        file.chunkEncodings[i] === LATIN1 ? undefined : decoder.decode(file.pool.subarray(start, file.chunkEnds[i])),
      );
    }
    const made: (Map<number, string> | undefined)[] = [];
    for (const column of few) made[column] = new Map();
    return new RecordTable(
      new MmdbTree(file.tree, file.shape, file.jumps),
      file.shape.nodeCount + 16,
      file,
      pool,
      chunkStarts,
      decoded,
      made,
    );
  }

  /** The number of the address's record, or NO_ORDINAL. */
  ordinalOf(ip: ParsedIp): number {
    const leaf = this.tree.recordPointer(ip);
    return leaf === NO_RECORD ? NO_ORDINAL : leaf - this.leafBase;
  }

  /** One of the record's strings. */
  cell(ordinal: number, column: number): string {
    const string = this.cells[ordinal * this.columns + column];
    const made = this.made[column];
    if (made === undefined) return this.text(string);
    let value = made.get(string);
    if (value === undefined) made.set(string, (value = this.text(string)));
    return value;
  }

  private text(string: number): string {
    const chunk = (string / this.stringsPerChunk) | 0;
    const start = string % this.stringsPerChunk === 0 ? 0 : this.stringEnds[string - 1];
    const end = this.stringEnds[string];
    const text = this.decoded[chunk];
    if (text !== undefined) return text.slice(start, end);
    const at = this.chunkStarts[chunk];
    return this.pool.toString("latin1", at + start, at + end);
  }
}
