import { type MonthlyQuota, QuotaMonth, type QuotaDecision, monthIndex, refusal } from "./monthly-quota.ts";

interface Counter {
  month: number;
  used: number;
}

/**
 * The quota of a single instance, counted in memory. Seeded at start from the usage
 * store so a restart does not hand anyone a fresh quota.
 */
export class LocalMonthlyQuota implements MonthlyQuota {
  private readonly counters = new Map<string, Counter>();
  private readonly months = new QuotaMonth();

  constructor(usedThisMonth: ReadonlyMap<string, number>, nowMs: number) {
    const month = monthIndex(nowMs);
    for (const [keyId, used] of usedThisMonth) this.counters.set(keyId, { month, used });
  }

  check(keyId: string, limit: number, nowMs: number, checks = 1): QuotaDecision | null {
    if (limit === 0) return null;
    const month = this.months.at(nowMs);
    const used = this.usedIn(keyId, month.index);
    if (used + checks <= limit) return { allowed: true, limit, used, resetsAt: month.resetsAt };
    return refusal(limit, used, month, nowMs);
  }

  countSuccess(keyId: string, nowMs: number, checks = 1): void {
    const index = this.months.at(nowMs).index;
    const counter = this.counters.get(keyId);
    if (counter === undefined || counter.month !== index) this.counters.set(keyId, { month: index, used: checks });
    else counter.used += checks;
  }

  private usedIn(keyId: string, month: number): number {
    const counter = this.counters.get(keyId);
    return counter !== undefined && counter.month === month ? counter.used : 0;
  }
}
