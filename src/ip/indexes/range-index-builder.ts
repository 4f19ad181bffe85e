import type { AddressRange } from "../address/address-range.ts";
import type { RangeColumns } from "./range-index.ts";

/** A list of uint32s that grows like an array, held in one typed array: no heap cell per value. */
class Uint32Column {
  private values = new Uint32Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Uint32Array(this.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }

  set(at: number, value: number): void {
    this.values[at] = value;
  }

  /** The values pushed, without the spare room. */
  view(): Uint32Array {
    return this.values.subarray(0, this.length);
  }

  /** A copy of the values pushed, exactly as long. */
  copy(): Uint32Array {
    return this.values.slice(0, this.length);
  }
}

/** Where an address family's bounds are kept: IPv4 in Uint32Columns, IPv6 as bigints. */
interface BoundList<K> {
  readonly length: number;
  push(value: K): void;
  set(at: number, value: K): void;
  view(): ArrayLike<K>;
}

class BigintColumn implements BoundList<bigint> {
  private readonly values: bigint[] = [];

  get length(): number {
    return this.values.length;
  }

  push(value: bigint): void {
    this.values.push(value);
  }

  set(at: number, value: bigint): void {
    this.values[at] = value;
  }

  view(): bigint[] {
    return this.values;
  }
}

/** The arithmetic the sweep needs; IPv4 bounds are plain numbers (exact far beyond 2^32), IPv6 bounds bigints. */
interface Arithmetic<K> {
  compare(a: K, b: K): number;
  next(a: K): K;
  previous(a: K): K;
  bounds(): BoundList<K>;
  /** Each end's successor: where the entry stops covering. */
  afterEnds(ends: ArrayLike<K>): ArrayLike<K>;
  /** Every start and after-end, sorted, each once. */
  points(starts: ArrayLike<K>, afterEnds: ArrayLike<K>): ArrayLike<K>;
}

const IPV4: Arithmetic<number> = {
  compare: (a, b) => a - b,
  next: (a) => a + 1,
  previous: (a) => a - 1,
  bounds: () => new Uint32Column(),
  afterEnds: (ends) => {
    // 2^32 after the last address: beyond a uint32.
    const after = new Float64Array(ends.length);
    for (let e = 0; e < ends.length; e++) after[e] = ends[e] + 1;
    return after;
  },
  points: (starts, afterEnds) => {
    const points = new Float64Array(starts.length + afterEnds.length);
    points.set(starts);
    points.set(afterEnds, starts.length);
    points.sort();
    return points.subarray(0, distinct(points));
  },
};

const IPV6: Arithmetic<bigint> = {
  compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  next: (a) => a + 1n,
  previous: (a) => a - 1n,
  bounds: () => new BigintColumn(),
  afterEnds: (ends) => Array.from(ends, (end) => end + 1n),
  points: (starts, afterEnds) => {
    const points = [...Array.from(starts), ...Array.from(afterEnds)].sort(IPV6.compare);
    points.length = distinct(points);
    return points;
  },
};

const MAX_V4 = 0xffffffffn;
const MAX_V6 = (1n << 128n) - 1n;

/**
 * Collects possibly overlapping ranges with payloads and produces the sorted,
 * non-overlapping columns of a RangeIndex: where entries overlap, their payloads
 * are merged; neighbouring ranges with equal payloads become one. Callers that add
 * many ranges with the same payload pass one object for them: each payload object is
 * held once, and each sequence of them covering a stretch merged and encoded once.
 */
export class RangeIndexBuilder<P> {
  private readonly payloads: P[] = [];
  private readonly payloadIds = new Map<P, number>();
  private readonly v4: Entries<number> = { starts: IPV4.bounds(), ends: IPV4.bounds(), payloads: new Uint32Column() };
  private readonly v6: Entries<bigint> = { starts: IPV6.bounds(), ends: IPV6.bounds(), payloads: new Uint32Column() };

  add({ version, first, last }: AddressRange, payload: P): void {
    const max = version === 4 ? MAX_V4 : MAX_V6;
    if (first < 0n || last > max || first > last) throw new RangeError(`bad IPv${version} range ${first}–${last}`);
    let id = this.payloadIds.get(payload);
    if (id === undefined) this.payloadIds.set(payload, (id = this.payloads.push(payload) - 1));
    if (version === 4) push(this.v4, Number(first), Number(last), id);
    else push(this.v6, first, last, id);
  }

  /**
   * `merge` combines the payloads covering a stretch (in the order they were added);
   * `encode` turns the merged payload into the stored uint32 and must give equal
   * numbers for equal payloads.
   */
  build<M>(merge: (payloads: P[]) => M, encode: (merged: M) => number): RangeColumns {
    const valueOfIds = memoised((ids) => encode(merge(ids.map((id) => this.payloads[id]))));
    const v4 = sweep(this.v4, IPV4, valueOfIds);
    const v6 = sweep(this.v6, IPV6, valueOfIds);
    return {
      v4Starts: (v4.starts as Uint32Column).copy(),
      v4Ends: (v4.ends as Uint32Column).copy(),
      v4Values: v4.values.copy(),
      v6Starts: toWords((v6.starts as BigintColumn).view()),
      v6Ends: toWords((v6.ends as BigintColumn).view()),
      v6Values: v6.values.copy(),
    };
  }
}

/** The value of the stretch covered by entries whose payloads are these ids, in the order added. */
type ValueOf = (ids: ArrayLike<number>, covering: readonly number[]) => number;

interface Memo {
  value: number | undefined;
  next: Map<number, Memo> | undefined;
}

/**
 * The value of each sequence of payloads computed once: merging and encoding are functions
 * of the payloads, and a feed's entries share a few payload objects, so most stretches
 * repeat a sequence seen before and cost a walk of a small tree, nothing allocated.
 */
function memoised(compute: (ids: number[]) => number): ValueOf {
  const root: Memo = { value: undefined, next: undefined };
  return (ids, covering) => {
    let node = root;
    for (const e of covering) {
      node.next ??= new Map();
      let child = node.next.get(ids[e]);
      if (child === undefined) node.next.set(ids[e], (child = { value: undefined, next: undefined }));
      node = child;
    }
    node.value ??= compute(covering.map((e) => ids[e]));
    return node.value;
  };
}

interface Entries<K> {
  readonly starts: BoundList<K>;
  readonly ends: BoundList<K>;
  /** Each entry's payload, as its number in the builder's list of distinct payloads. */
  readonly payloads: Uint32Column;
}

function push<K>(entries: Entries<K>, start: K, end: K, payload: number): void {
  entries.starts.push(start);
  entries.ends.push(end);
  entries.payloads.push(payload);
}

/**
 * Cuts the line at every point where an entry starts or stops, and walks the pieces
 * keeping the set of entries that cover the current one.
 */
function sweep<K>(entries: Entries<K>, math: Arithmetic<K>, valueOfIds: ValueOf) {
  const out = { starts: math.bounds(), ends: math.bounds(), values: new Uint32Column() };
  let lastEnd: K | undefined;
  let lastValue = -1;
  const emit = (start: K, end: K, value: number) => {
    if (lastEnd !== undefined && lastValue === value && math.next(lastEnd) === start) {
      out.ends.set(out.ends.length - 1, end);
    } else {
      out.starts.push(start);
      out.ends.push(end);
      out.values.push(value);
    }
    lastEnd = end;
    lastValue = value;
  };
  const starts = entries.starts.view();
  const ends = entries.ends.view();
  const ids = entries.payloads.view();
  if (isSortedAndDisjoint(starts, ends, math)) {
    // Such as the ASN tables: nothing to cut.
    const one = [0];
    for (let e = 0; e < starts.length; e++) {
      one[0] = e;
      emit(starts[e], ends[e], valueOfIds(ids, one));
    }
    return out;
  }
  const afterEnds = math.afterEnds(ends);
  const points = math.points(starts, afterEnds);
  const opening = groupByPoint(starts, points, math);
  const closing = groupByPoint(afterEnds, points, math);

  // Entry numbers in the order they were added, which is the order `merge` sees.
  const active: number[] = [];
  for (let p = 0; p < points.length - 1; p++) {
    for (let k = closing.offsets[p]; k < closing.offsets[p + 1]; k++)
      active.splice(active.indexOf(closing.entries[k]), 1);
    for (let k = opening.offsets[p]; k < opening.offsets[p + 1]; k++) insertSorted(active, opening.entries[k]);
    if (active.length === 0) continue;
    emit(points[p], math.previous(points[p + 1]), valueOfIds(ids, active));
  }
  return out;
}

function isSortedAndDisjoint<K>(starts: ArrayLike<K>, ends: ArrayLike<K>, math: Arithmetic<K>): boolean {
  for (let e = 1; e < starts.length; e++) if (math.compare(starts[e], ends[e - 1]) <= 0) return false;
  return true;
}

/** For each point, the entries whose bound is that point, in the order they were added. */
function groupByPoint<K>(bounds: ArrayLike<K>, points: ArrayLike<K>, math: Arithmetic<K>) {
  const pointOf = new Uint32Array(bounds.length);
  const offsets = new Uint32Array(points.length + 1);
  for (let e = 0; e < bounds.length; e++) {
    const p = indexOf(points, bounds[e], math);
    pointOf[e] = p;
    offsets[p + 1]++;
  }
  for (let p = 0; p < points.length; p++) offsets[p + 1] += offsets[p];
  const filled = offsets.slice(0, points.length);
  const entries = new Uint32Array(bounds.length);
  for (let e = 0; e < bounds.length; e++) entries[filled[pointOf[e]]++] = e;
  return { offsets, entries };
}

function indexOf<K>(sorted: ArrayLike<K>, value: K, math: Arithmetic<K>): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (math.compare(sorted[mid], value) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertSorted(list: number[], value: number): void {
  let at = list.length;
  while (at > 0 && list[at - 1] > value) at--;
  list.splice(at, 0, value);
}

/** Moves each value of a sorted list once to its front; returns how many there are. */
function distinct<K>(sorted: { [i: number]: K; length: number }): number {
  let kept = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[kept - 1]) sorted[kept++] = sorted[i];
  return kept;
}

function toWords(values: bigint[]): Uint32Array {
  const words = new Uint32Array(values.length * 4);
  values.forEach((v, i) => {
    for (let w = 3; w >= 0; w--) {
      words[i * 4 + w] = Number(v & 0xffffffffn);
      v >>= 32n;
    }
  });
  return words;
}
