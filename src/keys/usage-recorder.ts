import type { LastUse, UsageRow, UsageStore } from "./usage-store.ts";
import { COUNTER_SLOTS, USAGE_KINDS, type UsageKind, OUTCOMES, type Outcome, counterSlot, utcDay } from "./usage.ts";

interface LastSeen {
  ms: number;
  ip: string | null;
  /** When `ip` was seen: -Infinity before any address was. */
  ipMs: number;
}

/**
 * A key's last client address is looked up again at most this often: finding a request's
 * peer costs about a microsecond, a tenth of a whole email check.
 */
export const ADDRESS_REFRESH_MS = 1_000;

interface PendingCounts {
  day: string;
  counts: Uint32Array;
}

/**
 * Counts requests in memory and hands them to the store in one transaction per
 * flush. A crash loses at most what was counted since the last flush.
 */
export class UsageRecorder {
  private pending = new Map<string, PendingCounts>();
  private finishedDays: UsageRow[] = [];
  private lastUsed = new Map<string, LastSeen>();
  /** The earliest instant at which some pending entry belongs to a finished day. */
  private dayEnd = Number.POSITIVE_INFINITY;
  private writing: Promise<void> | null = null;

  constructor(private readonly store: UsageStore) {}

  record(keyId: string, endpoint: UsageKind, outcome: Outcome, nowMs: number, count = 1): void {
    let entry = this.pending.get(keyId);
    if (entry === undefined || (nowMs >= this.dayEnd && utcDay(nowMs) !== entry.day)) {
      if (entry) this.finishedDays.push(...rowsOf(keyId, entry));
      entry = { day: utcDay(nowMs), counts: new Uint32Array(COUNTER_SLOTS) };
      this.pending.set(keyId, entry);
      this.dayEnd = Math.min(this.dayEnd, nextUtcMidnight(nowMs));
    }
    entry.counts[counterSlot(endpoint, outcome)] += count;
    const last = this.lastUsed.get(keyId);
    if (last === undefined) this.lastUsed.set(keyId, { ms: nowMs, ip: null, ipMs: Number.NEGATIVE_INFINITY });
    else last.ms = nowMs;
  }

  /** Whether the key's client address is worth looking up now: none was seen in the last ADDRESS_REFRESH_MS. */
  wantsAddress(keyId: string, nowMs: number): boolean {
    const last = this.lastUsed.get(keyId);
    return last === undefined || nowMs - last.ipMs >= ADDRESS_REFRESH_MS;
  }

  /** The key was used from this client address (null: none known); kept in memory until the flush. */
  usedFrom(keyId: string, ip: string | null, nowMs: number): void {
    const last = this.lastUsed.get(keyId);
    if (last === undefined) this.lastUsed.set(keyId, { ms: nowMs, ip, ipMs: nowMs });
    else {
      last.ms = nowMs;
      last.ip = ip;
      last.ipMs = nowMs;
    }
  }

  /** Writes what was counted; one write at a time, and a failed one's counts wait for the next. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing.catch(() => {});
    const rows = this.finishedDays;
    for (const [keyId, entry] of this.pending) rows.push(...rowsOf(keyId, entry));
    const lastUsed = this.lastUsed;
    this.pending = new Map();
    this.finishedDays = [];
    this.lastUsed = new Map();
    this.dayEnd = Number.POSITIVE_INFINITY;
    this.writing = this.store.flush(
      rows,
      new Map<string, LastUse>([...lastUsed].map(([id, { ms, ip }]) => [id, { at: new Date(ms).toISOString(), ip }])),
    );
    try {
      await this.writing;
    } catch (err) {
      // Requests counted meanwhile stay pending; these rows join the next flush (the database may be
      // unreachable, locked or full), and the latest use of each key is kept.
      this.finishedDays.push(...rows);
      for (const [id, seen] of lastUsed) if (!((this.lastUsed.get(id)?.ms ?? 0) > seen.ms)) this.lastUsed.set(id, seen);
      throw err;
    } finally {
      this.writing = null;
    }
  }
}

function rowsOf(keyId: string, entry: PendingCounts): UsageRow[] {
  const rows: UsageRow[] = [];
  for (const endpoint of USAGE_KINDS) {
    for (const outcome of OUTCOMES) {
      const count = entry.counts[counterSlot(endpoint, outcome)];
      if (count > 0) rows.push({ keyId, day: entry.day, endpoint, outcome, count });
    }
  }
  return rows;
}

function nextUtcMidnight(ms: number): number {
  return (Math.floor(ms / 86_400_000) + 1) * 86_400_000;
}
