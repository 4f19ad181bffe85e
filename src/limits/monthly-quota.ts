export type QuotaDecision =
  | { readonly allowed: true; readonly limit: number; readonly used: number; readonly resetsAt: string }
  | {
      readonly allowed: false;
      readonly limit: number;
      readonly used: number;
      readonly resetsAt: string;
      readonly retryAfterSeconds: number;
    };

/**
 * Successful IP checks per key per calendar month (UTC), decided from memory on the
 * request path: in this process alone (SQLite), or from leases on a shared count (PostgreSQL).
 */
export interface MonthlyQuota {
  /** Whether `checks` more successes (one, or a batch's IP items) fit; does not count them. `limit` 0 means unlimited. */
  check(keyId: string, limit: number, nowMs: number, checks?: number): QuotaDecision | null;
  countSuccess(keyId: string, nowMs: number, checks?: number): void;
}

export interface QuotaMonthSpan {
  /** Months since year 0, for cheap comparison. */
  readonly index: number;
  /** "2026-11". */
  readonly name: string;
  readonly endMs: number;
  /** The next month's first instant, as the X-Quota-Reset header shows it. */
  readonly resetsAt: string;
}

/** The calendar month (UTC) of an instant, computed once per month. */
export class QuotaMonth {
  private month: QuotaMonthSpan = { index: -1, name: "", endMs: 0, resetsAt: "" };

  at(nowMs: number): QuotaMonthSpan {
    if (nowMs >= this.month.endMs || this.month.index === -1) {
      const d = new Date(nowMs);
      const endMs = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
      this.month = {
        index: monthIndex(nowMs),
        name: d.toISOString().slice(0, 7),
        endMs,
        resetsAt: new Date(endMs).toISOString().replace(".000Z", "Z"),
      };
    }
    return this.month;
  }
}

export function monthIndex(ms: number): number {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

export function refusal(limit: number, used: number, month: QuotaMonthSpan, nowMs: number): QuotaDecision {
  return {
    allowed: false,
    limit,
    used,
    resetsAt: month.resetsAt,
    retryAfterSeconds: Math.ceil((month.endMs - nowMs) / 1000),
  };
}
