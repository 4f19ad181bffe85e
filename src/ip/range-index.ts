import type { ParsedIp } from "./parse.ts";

/**
 * Sorted, non-overlapping address ranges, each with a uint32 value. IPv4 bounds are
 * uint32; IPv6 bounds are four uint32 words each (most significant first). A lookup
 * is a binary search that allocates nothing.
 */
export interface RangeColumns {
  readonly v4Starts: Uint32Array;
  readonly v4Ends: Uint32Array;
  readonly v4Values: Uint32Array;
  readonly v6Starts: Uint32Array;
  readonly v6Ends: Uint32Array;
  readonly v6Values: Uint32Array;
}

export const NOT_FOUND = -1;

export class RangeIndex {
  constructor(readonly columns: RangeColumns) {}

  get size(): number {
    return this.columns.v4Values.length + this.columns.v6Values.length;
  }

  /** The value of the range holding the address, or NOT_FOUND. */
  lookup(ip: ParsedIp): number {
    return ip.version === 4 ? this.lookupV4(ip.v4) : this.lookupV6(ip.v6);
  }

  lookupV4(address: number): number {
    const { v4Starts: starts, v4Ends: ends, v4Values: values } = this.columns;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid] <= address) lo = mid + 1;
      else hi = mid - 1;
    }
    return hi >= 0 && address <= ends[hi] ? values[hi] : NOT_FOUND;
  }

  lookupV6(words: Uint32Array): number {
    const { v6Starts: starts, v6Ends: ends, v6Values: values } = this.columns;
    let lo = 0;
    let hi = values.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (compareWords(starts, mid * 4, words) <= 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return hi >= 0 && compareWords(ends, hi * 4, words) >= 0 ? values[hi] : NOT_FOUND;
  }
}

/** Sign of (table[at..at+4] − words), comparing as 128-bit unsigned numbers. */
function compareWords(table: Uint32Array, at: number, words: Uint32Array): number {
  for (let i = 0; i < 4; i++) {
    const a = table[at + i];
    const b = words[i];
    if (a !== b) return a < b ? -1 : 1;
  }
  return 0;
}

export function emptyColumns(): RangeColumns {
  const none = new Uint32Array(0);
  return { v4Starts: none, v4Ends: none, v4Values: none, v6Starts: none, v6Ends: none, v6Values: none };
}
