import { isAscii } from "node:buffer";

/** The runs tried for ASCII, longest first: most of the text is skipped natively in long runs, the rest narrowed down to short ones. */
const ASCII_RUNS = [1 << 16, 1 << 10, 1 << 6];

/**
 * A UTF-8 text kept as its bytes and read in pieces by UTF-16 offsets (the ASN index's
 * organisation names, whose offsets were counted in a JavaScript string). The bytes are
 * a view of the mapped index file, handed between threads without a copy; decoding the
 * whole text would put a string of twice its size on the reading thread's heap.
 */
export class Utf8Text {
  private readonly bytes: Buffer;
  /** UTF-16 offsets of the characters outside ASCII, ascending, and the extra bytes up to and with each. */
  private readonly wideStarts: Uint32Array;
  private readonly extraBytes: Uint32Array;

  constructor(bytes: Uint8Array) {
    this.bytes = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const starts: number[] = [];
    const extras: number[] = [];
    let units = 0;
    let extra = 0;
    let i = 0;
    // Whole runs of ASCII are skipped natively: the text is mostly ASCII, and this runs on the serving thread.
    const scan = (end: number, level: number) => {
      while (i < end) {
        const run = Math.min(ASCII_RUNS[level], end - i);
        if (isAscii(bytes.subarray(i, i + run))) {
          units += run;
          i += run;
        } else if (level + 1 < ASCII_RUNS.length) scan(i + run, level + 1);
        else {
          // A character may end past the run: the next run starts after it.
          for (const stop = i + run; i < stop; ) {
            const lead = bytes[i];
            if (lead < 0x80) {
              units++;
              i++;
              continue;
            }
            const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
            const width = length === 4 ? 2 : 1;
            extra += length - width;
            starts.push(units);
            extras.push(extra);
            units += width;
            i += length;
          }
        }
      }
    };
    scan(bytes.length, 0);
    this.wideStarts = Uint32Array.from(starts);
    this.extraBytes = Uint32Array.from(extras);
  }

  /** The text between two UTF-16 offsets, as `String.prototype.slice` would give it from the whole. */
  slice(start: number, end: number): string {
    return this.bytes.toString("utf8", this.byteOffset(start), this.byteOffset(end));
  }

  /** Where a character boundary at a UTF-16 offset lies in the bytes. */
  private byteOffset(units: number): number {
    let low = 0;
    let high = this.wideStarts.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.wideStarts[mid] < units) low = mid + 1;
      else high = mid;
    }
    return units + (low === 0 ? 0 : this.extraBytes[low - 1]);
  }
}
