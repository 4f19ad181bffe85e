import type { UsageRow, UsageStore } from "./usage-store.ts";
import { COUNTER_SLOTS, ENDPOINTS, type Endpoint, OUTCOMES, type Outcome, counterSlot, utcDay } from "./usage.ts";

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
  private lastUsed = new Map<string, number>();
  /** The earliest instant at which some pending entry belongs to a finished day. */
  private dayEnd = Number.POSITIVE_INFINITY;

  constructor(private readonly store: UsageStore) {}

  record(keyId: string, endpoint: Endpoint, outcome: Outcome, nowMs: number): void {
    let entry = this.pending.get(keyId);
    if (entry === undefined || (nowMs >= this.dayEnd && utcDay(nowMs) !== entry.day)) {
      if (entry) this.finishedDays.push(...rowsOf(keyId, entry));
      entry = { day: utcDay(nowMs), counts: new Uint32Array(COUNTER_SLOTS) };
      this.pending.set(keyId, entry);
      this.dayEnd = Math.min(this.dayEnd, nextUtcMidnight(nowMs));
    }
    entry.counts[counterSlot(endpoint, outcome)]++;
    this.lastUsed.set(keyId, nowMs);
  }

  flush(): void {
    const rows = this.finishedDays;
    for (const [keyId, entry] of this.pending) rows.push(...rowsOf(keyId, entry));
    const lastUsed = this.lastUsed;
    this.pending = new Map();
    this.finishedDays = [];
    this.lastUsed = new Map();
    this.dayEnd = Number.POSITIVE_INFINITY;
    try {
      this.store.flush(rows, new Map([...lastUsed].map(([id, ms]) => [id, new Date(ms).toISOString()])));
    } catch (err) {
      // Nothing can be recorded during this synchronous call, so the counts go back as they were
      // and the next flush tries again (the database may be locked or the disk full).
      this.finishedDays = rows;
      this.lastUsed = lastUsed;
      throw err;
    }
  }
}

function rowsOf(keyId: string, entry: PendingCounts): UsageRow[] {
  const rows: UsageRow[] = [];
  for (const endpoint of ENDPOINTS) {
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
