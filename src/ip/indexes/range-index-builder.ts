import type { AddressRange } from "../address/address-range.ts";
import type { RangeColumns } from "./range-index.ts";

/**
 * The arithmetic the sweep needs; IPv4 bounds are plain numbers in typed arrays (exact far
 * beyond 2^32, and no heap cell each), IPv6 bounds bigints.
 */
interface Arithmetic<K> {
  compare(a: K, b: K): number;
  next(a: K): K;
  previous(a: K): K;
  /** Each end's successor: where the entry stops covering. */
  afterEnds(ends: readonly K[]): ArrayLike<K>;
  /** Every start and after-end, sorted, each once. */
  points(starts: readonly K[], afterEnds: ArrayLike<K>): ArrayLike<K>;
}

const IPV4: Arithmetic<number> = {
  compare: (a, b) => a - b,
  next: (a) => a + 1,
  previous: (a) => a - 1,
  afterEnds: (ends) => {
    const after = new Float64Array(ends.length);
    for (let e = 0; e < ends.length; e++) after[e] = ends[e] + 1;
    return after;
  },
  points: (starts, afterEnds) => {
    const points = new Float64Array(starts.length + afterEnds.length);
    points.set(starts);
    points.set(afterEnds as Float64Array, starts.length);
    points.sort();
    return points.subarray(0, distinct(points));
  },
};

const IPV6: Arithmetic<bigint> = {
  compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  next: (a) => a + 1n,
  previous: (a) => a - 1n,
  afterEnds: (ends) => ends.map((end) => end + 1n),
  points: (starts, afterEnds) => {
    const points = [...starts, ...(afterEnds as bigint[])].sort(IPV6.compare);
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
 * many ranges with the same payload pass one object for them: each sequence of payload
 * objects covering a stretch is merged and encoded once.
 */
export class RangeIndexBuilder<P> {
  private readonly v4 = { starts: [] as number[], ends: [] as number[], payloads: [] as P[] };
  private readonly v6 = { starts: [] as bigint[], ends: [] as bigint[], payloads: [] as P[] };

  add({ version, first, last }: AddressRange, payload: P): void {
    const max = version === 4 ? MAX_V4 : MAX_V6;
    if (first < 0n || last > max || first > last) throw new RangeError(`bad IPv${version} range ${first}–${last}`);
    if (version === 4) push(this.v4, Number(first), Number(last), payload);
    else push(this.v6, first, last, payload);
  }

  /**
   * `merge` combines the payloads covering a stretch (in the order they were added);
   * `encode` turns the merged payload into the stored uint32 and must give equal
   * numbers for equal payloads.
   */
  build<M>(merge: (payloads: P[]) => M, encode: (merged: M) => number): RangeColumns {
    const valueOf = memoised((payloads: P[]) => encode(merge(payloads)));
    const v4 = sweep(this.v4, IPV4, valueOf);
    const v6 = sweep(this.v6, IPV6, valueOf);
    return {
      v4Starts: Uint32Array.from(v4.starts),
      v4Ends: Uint32Array.from(v4.ends),
      v4Values: Uint32Array.from(v4.values),
      v6Starts: toWords(v6.starts),
      v6Ends: toWords(v6.ends),
      v6Values: Uint32Array.from(v6.values),
    };
  }
}

/** The value of the stretch covered by these entries (numbers into `payloads`, in the order added). */
type ValueOf<P> = (payloads: readonly P[], covering: readonly number[]) => number;

interface Memo<P> {
  value: number | undefined;
  readonly next: Map<P, Memo<P>>;
}

/**
 * The value of each sequence of payload objects computed once: merging and encoding are
 * functions of the payloads, and a feed's entries share a few payload objects, so most
 * stretches repeat a sequence seen before and cost a walk of a small tree, nothing allocated.
 */
function memoised<P>(compute: (payloads: P[]) => number): ValueOf<P> {
  const root: Memo<P> = { value: undefined, next: new Map() };
  return (payloads, covering) => {
    let node = root;
    for (const e of covering) {
      const payload = payloads[e];
      let child = node.next.get(payload);
      if (child === undefined) node.next.set(payload, (child = { value: undefined, next: new Map() }));
      node = child;
    }
    node.value ??= compute(covering.map((e) => payloads[e]));
    return node.value;
  };
}

interface Entries<K, P> {
  starts: K[];
  ends: K[];
  payloads: P[];
}

function push<K, P>(entries: Entries<K, P>, start: K, end: K, payload: P): void {
  entries.starts.push(start);
  entries.ends.push(end);
  entries.payloads.push(payload);
}

/**
 * Cuts the line at every point where an entry starts or stops, and walks the pieces
 * keeping the set of entries that cover the current one.
 */
function sweep<K, P>(entries: Entries<K, P>, math: Arithmetic<K>, valueOf: ValueOf<P>) {
  const out = { starts: [] as K[], ends: [] as K[], values: [] as number[] };
  const emit = (start: K, end: K, value: number) => {
    const last = out.values.length - 1;
    if (last >= 0 && out.values[last] === value && math.next(out.ends[last]) === start) {
      out.ends[last] = end;
    } else {
      out.starts.push(start);
      out.ends.push(end);
      out.values.push(value);
    }
  };
  if (isSortedAndDisjoint(entries, math)) {
    // Such as the ASN tables: nothing to cut.
    const one = [0];
    entries.starts.forEach((start, e) => {
      one[0] = e;
      emit(start, entries.ends[e], valueOf(entries.payloads, one));
    });
    return out;
  }
  const afterEnds = math.afterEnds(entries.ends);
  const points = math.points(entries.starts, afterEnds);
  const opening = groupByPoint(entries.starts, points, math);
  const closing = groupByPoint(afterEnds, points, math);

  // Entry numbers in the order they were added, which is the order `merge` sees.
  const active: number[] = [];
  for (let p = 0; p < points.length - 1; p++) {
    for (let k = closing.offsets[p]; k < closing.offsets[p + 1]; k++) active.splice(active.indexOf(closing.entries[k]), 1);
    for (let k = opening.offsets[p]; k < opening.offsets[p + 1]; k++) insertSorted(active, opening.entries[k]);
    if (active.length === 0) continue;
    emit(points[p], math.previous(points[p + 1]), valueOf(entries.payloads, active));
  }
  return out;
}

function isSortedAndDisjoint<K, P>({ starts, ends }: Entries<K, P>, math: Arithmetic<K>): boolean {
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
