export type QuotaDecision =
  | { readonly allowed: true; readonly limit: number; readonly used: number; readonly resetsAt: string }
  | { readonly allowed: false; readonly limit: number; readonly used: number; readonly resetsAt: string; readonly retryAfterSeconds: number };

interface Counter {
  month: number;
  used: number;
}

/**
 * Successful IP checks per key per calendar month (UTC), in memory. Seeded at start
 * from the usage store so a restart does not hand anyone a fresh quota.
 */
export class MonthlyQuota {
  private readonly counters = new Map<string, Counter>();
  private month: { index: number; endMs: number; resetsAt: string } = { index: -1, endMs: 0, resetsAt: "" };

  constructor(usedThisMonth: ReadonlyMap<string, number>, nowMs: number) {
    const month = monthIndex(nowMs);
    for (const [keyId, used] of usedThisMonth) this.counters.set(keyId, { month, used });
  }

  /** Whether one more success fits; does not count it. `limit` 0 means unlimited. */
  check(keyId: string, limit: number, nowMs: number): QuotaDecision | null {
    if (limit === 0) return null;
    const month = this.currentMonth(nowMs);
    const used = this.usedIn(keyId, month.index);
    if (used < limit) return { allowed: true, limit, used, resetsAt: month.resetsAt };
    return { allowed: false, limit, used, resetsAt: month.resetsAt, retryAfterSeconds: Math.ceil((month.endMs - nowMs) / 1000) };
  }

  countSuccess(keyId: string, nowMs: number): void {
    const index = this.currentMonth(nowMs).index;
    const counter = this.counters.get(keyId);
    if (counter === undefined || counter.month !== index) this.counters.set(keyId, { month: index, used: 1 });
    else counter.used++;
  }

  private usedIn(keyId: string, month: number): number {
    const counter = this.counters.get(keyId);
    return counter !== undefined && counter.month === month ? counter.used : 0;
  }

  private currentMonth(nowMs: number) {
    if (nowMs >= this.month.endMs || this.month.index === -1) {
      const d = new Date(nowMs);
      const endMs = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
      this.month = { index: monthIndex(nowMs), endMs, resetsAt: new Date(endMs).toISOString().replace(".000Z", "Z") };
    }
    return this.month;
  }
}

function monthIndex(ms: number): number {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}
