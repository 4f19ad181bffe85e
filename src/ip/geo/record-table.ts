import type { ParsedIp } from "../address/parse.ts";
import { MmdbTree, NO_RECORD } from "./mmdb-tree.ts";
import type { RecordTableFile } from "./record-table-file.ts";

/** No record for the address. */
export const NO_ORDINAL = -1;

/** Longest the string decoding holds the event loop before it gives it a turn. */
const SLICE_MS = 4;

/**
 * A compiled table, served: the tree walk gives the record's number, the number its
 * strings. The tree and the cells stay views on the file's bytes; the string pool is
 * decoded into a few hundred long strings (a chunk each), which the collector sees as
 * a few hundred objects.
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
    const chunks: string[] = [];
    let sliceStart = performance.now();
    for (let i = 0; i < file.chunkEnds.length; i++) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      chunks.push(decoder.decode(file.pool.subarray(i === 0 ? 0 : file.chunkEnds[i - 1], file.chunkEnds[i])));
    }
    return new RecordTable(new MmdbTree(file.tree, file.shape, file.jumps), file.shape.nodeCount + 16, file, chunks);
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
