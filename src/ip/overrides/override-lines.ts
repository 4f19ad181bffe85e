import { type ParsedIp, parseIpAddress } from "../address/parse.ts";
import type { IpOverrideLine } from "./ip-override.ts";

/** Where a line in force came from: the database, or `data/ip/allowlist.txt`. */
export interface OverrideInForce extends IpOverrideLine {
  readonly source: "database" | "allowlist-file";
}

/** A range line as kept: its line and prefix length, and for IPv6 its network's four words. */
interface Entry {
  readonly line: OverrideInForce;
  readonly length: number;
  readonly words: readonly number[];
}

/** `word` (the `index`th 32 bits of an address) with the bits below a `length`-bit prefix cleared. */
function masked(word: number, index: number, length: number): number {
  const bits = length - index * 32;
  if (bits >= 32) return word >>> 0;
  if (bits <= 0) return 0;
  return (word & (-1 << (32 - bits))) >>> 0;
}

const v4Key = (address: number, length: number) => (length === 0 ? 0 : address >>> (32 - length));

/** A number for an IPv6 network's four (masked) words; networks that share one are told apart in their bucket. */
const v6Key = (a: number, b: number, c: number, d: number) =>
  (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b) ^ Math.imul(c, 0xc2b2ae35) ^ Math.imul(d, 0x27d4eb2f)) | 0;

/** The lengths in use, longest first. */
function withLength(lengths: number[], length: number): number[] {
  return lengths.includes(length) ? lengths : [...lengths, length].sort((x, y) => y - x);
}

/**
 * One source's override lines (the database's, or the allowlist file's), kept for lookups that
 * allocate nothing and changes that cost O(1): a map per prefix length in use from the network
 * to its line (IPv6 networks by a hash of their words, checked), and the AS lines by number. A
 * lookup probes the lengths in use, longest first: a few map reads.
 */
export class OverrideLines {
  private readonly v4: (Map<number, Entry> | undefined)[] = new Array(33);
  private v4Lengths: number[] = [];
  private readonly v6: (Map<number, Entry[]> | undefined)[] = new Array(129);
  private v6Lengths: number[] = [];
  private readonly byAsn = new Map<number, OverrideInForce>();
  private count = 0;

  static of(lines: readonly OverrideInForce[]): OverrideLines {
    const kept = new OverrideLines();
    for (const line of lines) kept.set(line);
    return kept;
  }

  get size(): number {
    return this.count;
  }

  /**
   * Puts the line in force, in place of any for its target. Lines are kept in ipOverrideTarget's
   * form: a row edited by hand into something else decides nothing (riskcheck ip list still shows it).
   */
  set(line: OverrideInForce): void {
    this.delete(line.target);
    const { target } = line;
    if (target.startsWith("AS")) {
      const asn = Number(target.slice(2));
      if (!Number.isInteger(asn) || asn <= 0) return;
      this.byAsn.set(asn, line);
      this.count++;
      return;
    }
    const network = networkOf(target);
    if (network === null) return;
    const { ip, length } = network;
    if (ip.version === 4) {
      let map = this.v4[length];
      if (map === undefined) {
        map = this.v4[length] = new Map();
        this.v4Lengths = withLength(this.v4Lengths, length);
      }
      map.set(v4Key(ip.v4, length), { line, length, words: [] });
    } else {
      const words = [0, 1, 2, 3].map((i) => masked(ip.v6[i], i, length));
      let map = this.v6[length];
      if (map === undefined) {
        map = this.v6[length] = new Map();
        this.v6Lengths = withLength(this.v6Lengths, length);
      }
      const key = v6Key(words[0], words[1], words[2], words[3]);
      map.set(key, [...(map.get(key) ?? []), { line, length, words }]);
    }
    this.count++;
  }

  /** Takes the target's line out of force, if it has one here. */
  delete(target: string): void {
    if (target.startsWith("AS")) {
      if (this.byAsn.delete(Number(target.slice(2)))) this.count--;
      return;
    }
    const network = networkOf(target);
    if (network === null) return;
    const { ip, length } = network;
    if (ip.version === 4) {
      const map = this.v4[length];
      if (map?.delete(v4Key(ip.v4, length))) {
        this.count--;
        if (map.size === 0) {
          this.v4[length] = undefined;
          this.v4Lengths = this.v4Lengths.filter((l) => l !== length);
        }
      }
      return;
    }
    const map = this.v6[length];
    const words = [0, 1, 2, 3].map((i) => masked(ip.v6[i], i, length));
    const key = v6Key(words[0], words[1], words[2], words[3]);
    const bucket = map?.get(key);
    if (map === undefined || bucket === undefined) return;
    const kept = bucket.filter((entry) => entry.line.target !== target);
    if (kept.length === bucket.length) return;
    this.count--;
    if (kept.length > 0) map.set(key, kept);
    else map.delete(key);
    if (map.size === 0) {
      this.v6[length] = undefined;
      this.v6Lengths = this.v6Lengths.filter((l) => l !== length);
    }
  }

  clear(): void {
    this.v4.fill(undefined);
    this.v6.fill(undefined);
    this.v4Lengths = [];
    this.v6Lengths = [];
    this.byAsn.clear();
    this.count = 0;
  }

  /** The longest range or address line covering `ip` whose prefix is `shortest` bits or more, at most `longest`. */
  covering(ip: ParsedIp, shortest: number, longest: number): Entry | null {
    if (ip.version === 4) {
      for (const length of this.v4Lengths) {
        if (length > longest) continue;
        if (length < shortest) return null;
        const entry = this.v4[length]!.get(v4Key(ip.v4, length));
        if (entry !== undefined) return entry;
      }
      return null;
    }
    const v6 = ip.v6;
    for (const length of this.v6Lengths) {
      if (length > longest) continue;
      if (length < shortest) return null;
      const a = masked(v6[0], 0, length);
      const b = masked(v6[1], 1, length);
      const c = masked(v6[2], 2, length);
      const d = masked(v6[3], 3, length);
      const bucket = this.v6[length]!.get(v6Key(a, b, c, d));
      if (bucket === undefined) continue;
      for (const entry of bucket) {
        const w = entry.words;
        if (w[0] === a && w[1] === b && w[2] === c && w[3] === d) return entry;
      }
    }
    return null;
  }

  asn(asn: number): OverrideInForce | undefined {
    return this.byAsn.get(asn);
  }
}

/** The network a line's target names, "203.0.113.0/24" or an address alone; null for anything else. */
function networkOf(target: string): { ip: ParsedIp; length: number } | null {
  const slash = target.indexOf("/");
  const ip = parseIpAddress(slash === -1 ? target : target.slice(0, slash));
  if (ip === null) return null;
  const width = ip.version === 4 ? 32 : 128;
  if (slash === -1) return { ip, length: width };
  const bits = target.slice(slash + 1);
  return /^\d{1,3}$/.test(bits) && Number(bits) <= width ? { ip, length: Number(bits) } : null;
}
