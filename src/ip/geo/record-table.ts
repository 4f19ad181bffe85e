import type { ParsedIp } from "../address/parse.ts";
import { MmdbTree, NO_RECORD } from "./mmdb-tree.ts";
import { LATIN1, type RecordTableFile } from "./record-table-file.ts";

/** No record for the address. */
export const NO_ORDINAL = -1;

/** Longest the string decoding holds the event loop before it gives it a turn. */
const SLICE_MS = 4;

/**
 * A compiled table, served: the tree walk gives the record's number, the number its
 * strings. The tree and the cells stay typed arrays; the string pool is decoded into a
 * few hundred long strings (a chunk each, 8-bit where the chunk fits Latin-1), which the
 * collector sees as a few hundred objects.
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
    private readonly chunks: readonly string[],
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
   * Decodes the string pool a chunk at a time, giving the event loop a turn every few
   * milliseconds. The `few` columns (a country: a few hundred values) get their strings
   * made here, so reading them makes nothing. The pool's bytes are not kept.
   */
  static async open(file: RecordTableFile, few: readonly number[] = []): Promise<RecordTable> {
    const decoder = new TextDecoder();
    const pool = Buffer.from(file.pool.buffer, file.pool.byteOffset, file.pool.byteLength);
    const chunks: string[] = [];
    let sliceStart = performance.now();
    const turn = async () => {
      if (performance.now() - sliceStart < SLICE_MS) return;
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    };
    for (let i = 0; i < file.chunkEnds.length; i++) {
      await turn();
      const start = i === 0 ? 0 : file.chunkEnds[i - 1];
      const end = file.chunkEnds[i];
      chunks.push(
        file.chunkEncodings[i] === LATIN1
          ? pool.toString("latin1", start, end)
          : decoder.decode(file.pool.subarray(start, end)),
      );
    }
    const table = new RecordTable(
      new MmdbTree(file.tree, file.shape, file.jumps),
      file.shape.nodeCount + 16,
      file,
      chunks,
      [],
    );
    const made: string[][] = [];
    for (const column of few) {
      const byString = new Map<number, string>();
      const values: string[] = (made[column] = new Array(file.recordCount));
      for (let ordinal = 0; ordinal < file.recordCount; ordinal++) {
        if (ordinal % 16384 === 0) await turn();
        const string = file.cells[ordinal * file.columns + column];
        let value = byString.get(string);
        if (value === undefined) byString.set(string, (value = table.cell(ordinal, column)));
        values[ordinal] = value;
      }
    }
    return few.length ? new RecordTable(table.tree, table.leafBase, file, chunks, made) : table;
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
    const ends = this.stringEnds;
    const perChunk = this.stringsPerChunk;
    return this.chunks[(string / perChunk) | 0].slice(string % perChunk === 0 ? 0 : ends[string - 1], ends[string]);
  }
}
