import type { Cidr } from "./cidr.ts";
import type { RangeColumns } from "./range-index.ts";

interface Entry<P> {
  start: bigint;
  end: bigint;
  payload: P;
}

const MAX_V4 = 0xffffffffn;
const MAX_V6 = (1n << 128n) - 1n;

export function cidrBounds(cidr: Cidr): { version: 4 | 6; start: bigint; end: bigint } {
  if (cidr.version === 4) return { version: 4, start: BigInt(cidr.start), end: BigInt(cidr.end) };
  let start = 0n;
  for (const w of cidr.words) start = (start << 32n) | BigInt(w);
  const hostBits = BigInt(128 - cidr.bits);
  start = (start >> hostBits) << hostBits;
  return { version: 6, start, end: start | ((1n << hostBits) - 1n) };
}

/**
 * Collects possibly overlapping ranges with payloads and produces the sorted,
 * non-overlapping columns of a RangeIndex: where entries overlap, their payloads
 * are merged; neighbouring ranges with equal payloads become one.
 */
export class RangeIndexBuilder<P> {
  private readonly v4: Entry<P>[] = [];
  private readonly v6: Entry<P>[] = [];

  add(version: 4 | 6, start: bigint, end: bigint, payload: P): void {
    const max = version === 4 ? MAX_V4 : MAX_V6;
    if (start < 0n || end > max || start > end) throw new RangeError(`bad IPv${version} range ${start}–${end}`);
    (version === 4 ? this.v4 : this.v6).push({ start, end, payload });
  }

  addCidr(cidr: Cidr, payload: P): void {
    const { version, start, end } = cidrBounds(cidr);
    this.add(version, start, end, payload);
  }

  /**
   * `merge` combines the payloads covering a stretch (in the order they were added);
   * `encode` turns the merged payload into the stored uint32 and must give equal
   * numbers for equal payloads.
   */
  build<M>(merge: (payloads: P[]) => M, encode: (merged: M) => number): RangeColumns {
    const v4 = sweep(this.v4, merge, encode);
    const v6 = sweep(this.v6, merge, encode);
    return {
      v4Starts: Uint32Array.from(v4.starts, Number),
      v4Ends: Uint32Array.from(v4.ends, Number),
      v4Values: Uint32Array.from(v4.values),
      v6Starts: toWords(v6.starts),
      v6Ends: toWords(v6.ends),
      v6Values: Uint32Array.from(v6.values),
    };
  }
}

function sweep<P, M>(entries: Entry<P>[], merge: (payloads: P[]) => M, encode: (m: M) => number) {
  const starts: bigint[] = [];
  const ends: bigint[] = [];
  const values: number[] = [];
  const emit = (start: bigint, end: bigint, value: number) => {
    const last = values.length - 1;
    if (last >= 0 && values[last] === value && ends[last] + 1n === start) ends[last] = end;
    else {
      starts.push(start);
      ends.push(end);
      values.push(value);
    }
  };

  // Fast path: inputs that never overlap (such as the ASN table) need no merging.
  const order = entries.map((e, i) => ({ e, i })).sort((a, b) => (a.e.start < b.e.start ? -1 : a.e.start > b.e.start ? 1 : a.i - b.i));
  let overlapping = false;
  for (let k = 1; k < order.length; k++) if (order[k].e.start <= order[k - 1].e.end) overlapping = true;
  if (!overlapping) {
    for (const { e } of order) emit(e.start, e.end, encode(merge([e.payload])));
    return { starts, ends, values };
  }

  const points = new Set<bigint>();
  for (const e of entries) {
    points.add(e.start);
    points.add(e.end + 1n);
  }
  const boundaries = [...points].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const byStart = new Map<bigint, { e: Entry<P>; i: number }[]>();
  for (const item of order) {
    const list = byStart.get(item.e.start);
    if (list) list.push(item);
    else byStart.set(item.e.start, [item]);
  }
  const active = new Map<number, Entry<P>>();
  for (let b = 0; b < boundaries.length - 1; b++) {
    const at = boundaries[b];
    for (const { e, i } of byStart.get(at) ?? []) active.set(i, e);
    for (const [i, e] of active) if (e.end < at) active.delete(i);
    if (active.size === 0) continue;
    const payloads = [...active.entries()].sort((x, y) => x[0] - y[0]).map(([, e]) => e.payload);
    emit(at, boundaries[b + 1] - 1n, encode(merge(payloads)));
  }
  return { starts, ends, values };
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
