import type { ParsedIp } from "../address/parse.ts";
import { MmdbTree, NO_RECORD } from "./mmdb-tree.ts";
import { LATIN1, type RecordTableFile } from "./record-table-file.ts";

/** No record for the address. */
export const NO_ORDINAL = -1;

/** Longest the opening holds the event loop before it gives it a turn. */
const SLICE_MS = 4;

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
    /** By column, for those with few distinct values: each record's value, made once. */
    private readonly made: readonly (readonly string[] | undefined)[],
  ) {
    this.cells = file.cells;
    this.columns = file.columns;
    this.stringEnds = file.stringEnds;
    this.stringsPerChunk = file.stringsPerChunk;
    this.recordCount = file.recordCount;
  }

  /**
   * Opens the table over its file's bytes, giving the event loop a turn every few
   * milliseconds. The `few` columns (a country: a few hundred values) get their strings
   * made here, so reading them makes nothing.
   */
  static async open(file: RecordTableFile, few: readonly number[] = []): Promise<RecordTable> {
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
    const tree = new MmdbTree(file.tree, file.shape, file.jumps);
    const leafBase = file.shape.nodeCount + 16;
    const table = new RecordTable(tree, leafBase, file, pool, chunkStarts, decoded, []);
    if (few.length === 0) return table;
    let sliceStart = performance.now();
    const made: string[][] = [];
    for (const column of few) {
      const byString = new Map<number, string>();
      const values: string[] = (made[column] = new Array(file.recordCount));
      for (let ordinal = 0; ordinal < file.recordCount; ordinal++) {
        if (ordinal % 16384 === 0 && performance.now() - sliceStart >= SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
        const string = file.cells[ordinal * file.columns + column];
        let value = byString.get(string);
        if (value === undefined) byString.set(string, (value = table.cell(ordinal, column)));
        values[ordinal] = value;
      }
    }
    return new RecordTable(tree, leafBase, file, pool, chunkStarts, decoded, made);
  }

  /** The number of the address's record, or NO_ORDINAL. */
  ordinalOf(ip: ParsedIp): number {
    const leaf = this.tree.recordPointer(ip);
    return leaf === NO_RECORD ? NO_ORDINAL : leaf - this.leafBase;
  }

  /** One of the record's strings. */
  cell(ordinal: number, column: number): string {
    const made = this.made[column];
    if (made !== undefined) return made[ordinal];
    const string = this.cells[ordinal * this.columns + column];
    const chunk = (string / this.stringsPerChunk) | 0;
    const start = string % this.stringsPerChunk === 0 ? 0 : this.stringEnds[string - 1];
    const end = this.stringEnds[string];
    const text = this.decoded[chunk];
    if (text !== undefined) return text.slice(start, end);
    const at = this.chunkStarts[chunk];
    return this.pool.toString("latin1", at + start, at + end);
  }
}
