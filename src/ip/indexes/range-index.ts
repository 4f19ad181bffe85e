import type { ParsedIp } from "../address/parse.ts";

/**
 * Sorted, non-overlapping address ranges, each with a uint32 value. IPv4 bounds are
 * uint32; IPv6 bounds are four uint32 words each (most significant first), the form
 * the parser delivers: comparing words allocates nothing, where BigUint64Array
 * halves would make a BigInt on every read (docs/benchmarks.md has the figures).
 */
export interface RangeColumns {
  readonly v4Starts: Uint32Array;
  readonly v4Ends: Uint32Array;
  readonly v4Values: Uint32Array;
  readonly v6Starts: Uint32Array;
  readonly v6Ends: Uint32Array;
  readonly v6Values: Uint32Array;
  /** The families' bucket tables as an index file holds them (`bucketTables`); made from the starts when absent. */
  readonly buckets?: BucketTables;
}

/** Per family, the bucket table of `bucketTable`, or null below BUCKETS_FROM ranges. */
export interface BucketTables {
  readonly v4: Uint32Array | null;
  readonly v6: Uint32Array | null;
}

export const NOT_FOUND = -1;

/** Below this many ranges a whole binary search is as quick as a bucket table. */
const BUCKETS_FROM = 1024;
const BUCKET_COUNT = 1 << 16;
/** Entries of a family's bucket table. */
export const BUCKET_TABLE_LENGTH = BUCKET_COUNT + 1;

/**
 * A lookup is a binary search that allocates nothing. Large indexes first narrow it
 * to the ranges that start under the address's top 16 bits (a table of 256 KiB per
 * family, compiled into the index file), which saves most of the cache misses of a
 * search over hundreds of thousands of ranges.
 */
export class RangeIndex {
  private readonly v4Buckets: Uint32Array | null;
  private readonly v6Buckets: Uint32Array | null;

  constructor(readonly columns: RangeColumns) {
    const buckets = columns.buckets ?? bucketTables(columns);
    this.v4Buckets = buckets.v4;
    this.v6Buckets = buckets.v6;
  }

  get size(): number {
    return this.columns.v4Values.length + this.columns.v6Values.length;
  }

  /** The value of the range holding the address, or NOT_FOUND. */
  lookup(ip: ParsedIp): number {
    return ip.version === 4 ? this.lookupV4(ip.v4) : this.lookupV6(ip.v6);
  }

  lookupV4(address: number): number {
    const { v4Starts: starts, v4Ends: ends, v4Values: values } = this.columns;
    const buckets = this.v4Buckets;
    let lo = 0;
    let hi = starts.length - 1;
    if (buckets !== null) {
      const bucket = address >>> 16;
      lo = buckets[bucket];
      hi = buckets[bucket + 1] - 1;
    }
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid] <= address) lo = mid + 1;
      else hi = mid - 1;
    }
    return hi >= 0 && address <= ends[hi] ? values[hi] : NOT_FOUND;
  }

  /** `words`: the address as four uint32, most significant first. */
  lookupV6(words: Uint32Array): number {
    const { v6Starts: starts, v6Ends: ends, v6Values: values } = this.columns;
    const buckets = this.v6Buckets;
    let lo = 0;
    let hi = values.length - 1;
    if (buckets !== null) {
      const bucket = words[0] >>> 16;
      lo = buckets[bucket];
      hi = buckets[bucket + 1] - 1;
    }
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (compareWords(starts, mid * 4, words, 0) <= 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return hi >= 0 && compareWords(ends, hi * 4, words, 0) >= 0 ? values[hi] : NOT_FOUND;
  }
}

/** The bucket tables a RangeIndex over these columns searches through. */
export function bucketTables(columns: Omit<RangeColumns, "buckets">): BucketTables {
  const { v4Starts, v6Starts, v6Values } = columns;
  return {
    v4: v4Starts.length >= BUCKETS_FROM ? bucketTable(v4Starts, 1) : null,
    v6: v6Values.length >= BUCKETS_FROM ? bucketTable(v6Starts, 4) : null,
  };
}

/**
 * Entry b is the index of the first range whose start has top 16 bits ≥ b, so the
 * ranges starting in bucket b are [table[b], table[b + 1]). When none does, the
 * search ends on table[b] − 1: the last range starting below the bucket, which may
 * still reach into it.
 */
function bucketTable(starts: Uint32Array, stride: 1 | 4): Uint32Array {
  const table = new Uint32Array(BUCKET_TABLE_LENGTH);
  const count = starts.length / stride;
  let range = 0;
  for (let bucket = 0; bucket <= BUCKET_COUNT; bucket++) {
    while (range < count && starts[range * stride] >>> 16 < bucket) range++;
    table[bucket] = range;
  }
  return table;
}

/** Sign of (a[at..at+4] − b[bt..bt+4]), comparing as 128-bit unsigned numbers. */
export function compareWords(a: Uint32Array, at: number, b: Uint32Array, bt: number): number {
  for (let i = 0; i < 4; i++) {
    const x = a[at + i];
    const y = b[bt + i];
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
