import { type ParsedIp, parseIpAddress } from "../ip/address/parse.ts";
import type { LocalCategory, LocalContribution, LocalReportView } from "../ip/verdict/local-reports.ts";
import type { Counters } from "../ip/verdict/reputation.ts";
import { REPORT_CATEGORIES, type ReportCategory } from "./report.ts";
import { Ipv4SlotTable } from "./ipv4-slot-table.ts";
import type { ReportDeletion, ReportRow } from "./report-store.ts";

const NONE = -1;
const FREE = 0;

function grown<T extends Int32Array | Uint32Array | Uint8Array | Float64Array>(array: T, size: number): T {
  if (size <= array.length) return array;
  const next = new (array.constructor as new (n: number) => T)(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

/**
 * The window's reports in parallel typed arrays, no object per report: one record per
 * (address, key, category) with its first and last report (25 bytes), chained from its
 * address's slot (9 bytes); an IPv4 address finds its slot in an Ipv4SlotTable (8–16
 * bytes), an IPv6 one in a Map from its text. Arrays grow by doubling and freed records and
 * slots are reused, so a million reports of as many addresses take about 65 MB of RSS
 * (bench/reports-scale.ts; 395 MB with an object per address and per reporter).
 */
class ReportTable {
  private readonly v4 = new Ipv4SlotTable();
  private readonly v6 = new Map<string, number>();
  /** Per slot: 4 or 6, or FREE; the IPv4 number (IPv6 texts in v6Text); the first record. */
  kind = new Uint8Array(1024);
  v4Number = new Uint32Array(1024);
  readonly v6Text = new Map<number, string>();
  head = new Int32Array(1024);
  slots = 0;
  private readonly freeSlots: number[] = [];

  /** Per record: its slot, key number, category number, first and last report (ms), next record of the slot. */
  recKey = new Int32Array(4096);
  recCategory = new Uint8Array(4096);
  recFirst = new Float64Array(4096);
  recLast = new Float64Array(4096);
  recNext = new Int32Array(4096);
  private records = 0;
  private readonly freeRecords: number[] = [];

  readonly keyIds: string[] = [];
  private readonly keyNumbers = new Map<string, number>();
  private lastKey = NONE;

  get addresses(): number {
    return this.v4.size + this.v6.size;
  }

  slotOf(ip: ParsedIp): number {
    return ip.version === 4 ? this.v4.get(ip.v4) : (this.v6.get(ip.text) ?? NONE);
  }

  keyNumber(keyId: string): number {
    return this.keyNumbers.get(keyId) ?? NONE;
  }

  ipOf(slot: number): string {
    const n = this.v4Number[slot];
    return this.kind[slot] === 4
      ? `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`
      : this.v6Text.get(slot)!;
  }

  add(row: ReportRow): void {
    const ip = parseIpAddress(row.ip);
    if (ip === null) return;
    const key = this.internKey(row.keyId);
    const category = REPORT_CATEGORIES.indexOf(row.category);
    let slot = this.slotOf(ip);
    if (slot === NONE) slot = this.newSlot(ip);
    for (let r = this.head[slot]; r !== NONE; r = this.recNext[r]) {
      if (this.recKey[r] === key && this.recCategory[r] === category) {
        this.recFirst[r] = Math.min(this.recFirst[r], row.reportedAtMs);
        this.recLast[r] = Math.max(this.recLast[r], row.reportedAtMs);
        return;
      }
    }
    const r = this.freeRecords.pop() ?? this.records++;
    if (r >= this.recKey.length) {
      this.recKey = grown(this.recKey, r + 1);
      this.recCategory = grown(this.recCategory, r + 1);
      this.recFirst = grown(this.recFirst, r + 1);
      this.recLast = grown(this.recLast, r + 1);
      this.recNext = grown(this.recNext, r + 1);
    }
    this.recKey[r] = key;
    this.recCategory[r] = category;
    this.recFirst[r] = row.reportedAtMs;
    this.recLast[r] = row.reportedAtMs;
    this.recNext[r] = this.head[slot];
    this.head[slot] = r;
  }

  /** Drops the records of one slot that `drop` names; frees the slot when none is left. */
  removeFrom(slot: number, drop: (r: number) => boolean): void {
    let previous = NONE;
    for (let r = this.head[slot]; r !== NONE; ) {
      const next = this.recNext[r];
      if (drop(r)) {
        if (previous === NONE) this.head[slot] = next;
        else this.recNext[previous] = next;
        this.freeRecords.push(r);
      } else previous = r;
      r = next;
    }
    if (this.head[slot] !== NONE) return;
    if (this.kind[slot] === 4) this.v4.delete(this.v4Number[slot]);
    else {
      this.v6.delete(this.v6Text.get(slot)!);
      this.v6Text.delete(slot);
    }
    this.kind[slot] = FREE;
    this.freeSlots.push(slot);
  }

  /** Applies a deletion made in the store to the slots from `from` to `to` (all of them for an address's). */
  delete({ ip, keyId, beforeMs }: ReportDeletion, from = 0, to = this.slots): void {
    const key = keyId === null ? NONE : this.keyNumber(keyId);
    if (keyId !== null && key === NONE) return;
    const drop = (r: number) =>
      (key === NONE || this.recKey[r] === key) && (beforeMs === null || this.recLast[r] < beforeMs);
    if (ip !== null) {
      const parsed = parseIpAddress(ip);
      const slot = parsed === null ? NONE : this.slotOf(parsed);
      if (slot !== NONE) this.removeFrom(slot, drop);
      return;
    }
    for (let slot = from; slot < Math.min(to, this.slots); slot++)
      if (this.kind[slot] !== FREE) this.removeFrom(slot, drop);
  }

  private internKey(keyId: string): number {
    // Rows come in runs of one key's reports: the last key is the likely one.
    if (this.keyIds[this.lastKey] === keyId) return this.lastKey;
    let key = this.keyNumbers.get(keyId);
    if (key === undefined) {
      key = this.keyIds.push(keyId) - 1;
      this.keyNumbers.set(keyId, key);
    }
    this.lastKey = key;
    return key;
  }

  private newSlot(ip: ParsedIp): number {
    const slot = this.freeSlots.pop() ?? this.slots++;
    if (slot >= this.kind.length) {
      this.kind = grown(this.kind, slot + 1);
      this.v4Number = grown(this.v4Number, slot + 1);
      this.head = grown(this.head, slot + 1);
    }
    this.head[slot] = NONE;
    if (ip.version === 4) {
      this.kind[slot] = 4;
      this.v4Number[slot] = ip.v4;
      this.v4.add(ip.v4, slot);
    } else {
      this.kind[slot] = 6;
      this.v6Text.set(slot, ip.text);
      this.v6.set(ip.text, slot);
    }
    return slot;
  }
}

/** An address of the window with the keys that reported it, for the dashboard. */
export interface ReportedAddress {
  readonly ip: string;
  /** Distinct reporting keys that count, all categories together. */
  readonly reporters: number;
  readonly byKey: readonly {
    readonly keyId: string;
    readonly categories: readonly ReportCategory[];
    readonly lastMs: number;
  }[];
}

/** One page of the most-reported addresses, and how many addresses the window holds. */
export interface ReportedPage {
  readonly total: number;
  readonly rows: readonly ReportedAddress[];
}

/** How many addresses a walk over all of them (the ranking, a key's deletion) takes between two turns of the event loop. */
const SLOTS_PER_TURN = 20_000;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The `local` source of the verdict: every reported address of the window with, per key
 * and category, the first and last report. A key counts once per address, whatever the
 * categories it used (its latest report's category gets the count; the others still show
 * as seen), and only while `keyCounts` says so: a revoked key's reports stop counting at
 * once. Rows may arrive more than once (the watch reads with overlap); a row only widens a
 * record's first–last span. Counting happens at read time against the window, so a report
 * leaves the count when it ages out, without a write.
 */
export class LocalReportIndex implements LocalReportView {
  private table = new ReportTable();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number,
    /** Whether a key's reports count (an active key); asked at read time. */
    private readonly keyCounts: (keyId: string) => boolean = () => true,
  ) {}

  get addresses(): number {
    return this.table.addresses;
  }

  add(rows: readonly ReportRow[]): void {
    for (const row of rows) this.table.add(row);
  }

  /** An empty index of the same settings, for a full read that replaces this one's content. */
  emptyCopy(): LocalReportIndex {
    return new LocalReportIndex(this.windowMs, this.now, this.keyCounts);
  }

  /** Takes over what `other` (an emptyCopy filled since) holds. */
  replaceWith(other: LocalReportIndex): void {
    this.table = other.table;
  }

  /**
   * Applies a deletion made in the store. One of an address's reports touches that address;
   * one of a key's, or of the reports before a date (a prune), walks every address,
   * SLOTS_PER_TURN between two turns of the event loop, so that the checks being served
   * meanwhile wait for no more than that.
   */
  async delete(deletion: ReportDeletion): Promise<void> {
    const t = this.table;
    if (deletion.ip !== null) return t.delete(deletion);
    for (let from = 0; from < t.slots; from += SLOTS_PER_TURN) {
      t.delete(deletion, from, from + SLOTS_PER_TURN);
      await nextTurn();
    }
  }

  /** Forgets the records whose last report is before `ms` (out of the window, or pruned). */
  forgetBefore(ms: number): Promise<void> {
    return this.delete({ ip: null, keyId: null, beforeMs: ms });
  }

  contributionOf(ip: ParsedIp): LocalContribution | null {
    const t = this.table;
    const slot = t.slotOf(ip);
    if (slot === NONE) return null;
    const since = this.now() - this.windowMs;
    const byCategory = [0, 0, 0, 0, 0];
    const firstMs = [Infinity, Infinity, Infinity, Infinity, Infinity];
    const lastMs = [0, 0, 0, 0, 0];
    const keys: number[] = [];
    const keyLatest: number[] = [];
    const keyCategory: number[] = [];
    for (let r = t.head[slot]; r !== NONE; r = t.recNext[r]) {
      if (t.recLast[r] < since || !this.keyCounts(t.keyIds[t.recKey[r]])) continue;
      const c = t.recCategory[r];
      byCategory[c]++;
      firstMs[c] = Math.min(firstMs[c], t.recFirst[r]);
      lastMs[c] = Math.max(lastMs[c], t.recLast[r]);
      const k = keys.indexOf(t.recKey[r]);
      if (k === NONE) {
        keys.push(t.recKey[r]);
        keyLatest.push(t.recLast[r]);
        keyCategory.push(c);
      } else if (t.recLast[r] > keyLatest[k] || (t.recLast[r] === keyLatest[k] && c < keyCategory[k])) {
        keyLatest[k] = t.recLast[r];
        keyCategory[k] = c;
      }
    }
    if (keys.length === 0) return null;
    const counted = [0, 0, 0, 0, 0];
    for (const c of keyCategory) counted[c]++;
    const counters: Counters = {
      bot: counted[0],
      probe: counted[1],
      rate: counted[2],
      attack: counted[3],
      crawler: counted[4],
    };
    const categories: LocalCategory[] = [];
    REPORT_CATEGORIES.forEach((category, c) => {
      if (byCategory[c] > 0)
        categories.push({
          category,
          reporters: byCategory[c],
          counted: counted[c],
          firstMs: firstMs[c],
          lastMs: lastMs[c],
        });
    });
    return { counters, categories };
  }

  /**
   * A page of the addresses most keys reported within the window, most first, among the
   * first `offset + limit`. The walk over every address yields to the event loop every
   * SLOTS_PER_TURN addresses, so that the checks being served wait for no more than that.
   */
  async mostReported(offset: number, limit: number): Promise<ReportedPage> {
    const t = this.table;
    const since = this.now() - this.windowMs;
    const counts = t.keyIds.map((id) => this.keyCounts(id));
    const wanted = offset + limit;
    let ranked: { slot: number; reporters: number }[] = [];
    let floor = 1;
    let total = 0;
    const seen: number[] = [];
    for (let slot = 0; slot < t.slots; slot++) {
      if (slot % SLOTS_PER_TURN === SLOTS_PER_TURN - 1) {
        await nextTurn();
        if (t !== this.table) return this.mostReported(offset, limit);
      }
      if (t.kind[slot] === FREE) continue;
      seen.length = 0;
      for (let r = t.head[slot]; r !== NONE; r = t.recNext[r]) {
        const key = t.recKey[r];
        if (t.recLast[r] >= since && counts[key] && !seen.includes(key)) seen.push(key);
      }
      if (seen.length === 0) continue;
      total++;
      if (seen.length < floor) continue;
      ranked.push({ slot, reporters: seen.length });
      if (ranked.length >= 2 * wanted) {
        ranked = ranked.sort((a, b) => b.reporters - a.reporters || a.slot - b.slot).slice(0, wanted);
        floor = ranked[wanted - 1].reporters;
      }
    }
    ranked.sort((a, b) => b.reporters - a.reporters || a.slot - b.slot);
    const rows = ranked.slice(offset, wanted).map(({ slot, reporters }) => {
      const byKey = new Map<number, { keyId: string; categories: ReportCategory[]; lastMs: number }>();
      for (let r = t.head[slot]; r !== NONE; r = t.recNext[r]) {
        const key = t.recKey[r];
        if (t.recLast[r] < since || !counts[key]) continue;
        const entry = byKey.get(key) ?? { keyId: t.keyIds[key], categories: [], lastMs: 0 };
        entry.categories.push(REPORT_CATEGORIES[t.recCategory[r]]);
        entry.lastMs = Math.max(entry.lastMs, t.recLast[r]);
        byKey.set(key, entry);
      }
      return { ip: t.ipOf(slot), reporters, byKey: [...byKey.values()] };
    });
    return { total, rows };
  }
}
