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
  private constructor(
    private readonly tree: MmdbTree,
    /** nodeCount + 16: a leaf minus this is the record's number. */
    private readonly leafBase: number,
    private readonly file: RecordTableFile,
    private readonly chunks: readonly string[],
  ) {}

  /** Decodes the string pool a chunk at a time, giving the event loop a turn every few milliseconds. */
  static async open(file: RecordTableFile): Promise<RecordTable> {
    const decoder = new TextDecoder();
    const pool = Buffer.from(file.pool.buffer, file.pool.byteOffset, file.pool.byteLength);
    const chunks: string[] = [];
    let sliceStart = performance.now();
    for (let i = 0; i < file.chunkEnds.length; i++) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      const start = i === 0 ? 0 : file.chunkEnds[i - 1];
      const end = file.chunkEnds[i];
      chunks.push(file.chunkEncodings[i] === LATIN1 ? pool.toString("latin1", start, end) : decoder.decode(file.pool.subarray(start, end)));
    }
    // Without the pool: once decoded, its bytes are of no more use.
    return new RecordTable(new MmdbTree(file.tree, file.shape, file.jumps), file.shape.nodeCount + 16, { ...file, pool: new Uint8Array(0) }, chunks);
  }

  get recordCount(): number {
    return this.file.recordCount;
  }

  /** The number of the address's record, or NO_ORDINAL. */
  ordinalOf(ip: ParsedIp): number {
    const leaf = this.tree.recordPointer(ip);
    return leaf === NO_RECORD ? NO_ORDINAL : leaf - this.leafBase;
  }

  /** One of the record's strings. */
  cell(ordinal: number, column: number): string {
    const string = this.file.cells[ordinal * this.file.columns + column];
    const ends = this.file.stringEnds;
    const perChunk = this.file.stringsPerChunk;
    return this.chunks[(string / perChunk) | 0].slice(string % perChunk === 0 ? 0 : ends[string - 1], ends[string]);
  }
}
