import { type UsageKind, type Outcome, utcDay, utcMonthStart } from "./usage.ts";

export interface UsageRow {
  keyId: string;
  day: string;
  endpoint: UsageKind;
  outcome: Outcome;
  count: number;
}

export interface DailyUsage {
  day: string;
  endpoint: UsageKind;
  count: number;
}

export interface KeyUsage {
  today: Partial<Record<UsageKind, number>>;
  month: Partial<Record<UsageKind, number>>;
  /** Successful IP checks this month: what the quota counts. */
  ipQuotaUsed: number;
  daily: DailyUsage[];
}

/** A key's last authenticated request: when (ISO), and from which client address, if it had one. */
export interface LastUse {
  readonly at: string;
  readonly ip: string | null;
}

/** Daily usage counters, written in batches by the usage recorder. */
export interface UsageStore {
  /** Adds the rows and last uses in one transaction; a last use older than the stored one is ignored. */
  flush(rows: readonly UsageRow[], lastUsed: ReadonlyMap<string, LastUse>): Promise<void>;
  /** One key's rows (day, endpoint, outcome) over the last `days` days, oldest first. */
  outcomesOf(keyId: string, days: number, nowMs: number): Promise<UsageRow[]>;
  /**
   * Each of `keyIds`'s requests today and this month (all outcomes) and its requests per
   * day over the last `days` days, oldest first: one aggregate query however many keys.
   */
  usageOf(keyIds: readonly string[], days: number, nowMs: number): Promise<Map<string, KeyUsage>>;
}

/** The days usageOf must read from: this month's first, or the chart's first if earlier. */
export function usageWindow(
  days: number,
  nowMs: number,
): { from: string; today: string; monthStart: string; chartStart: string } {
  const monthStart = utcMonthStart(nowMs);
  const chartStart = utcDay(nowMs - (days - 1) * 86_400_000);
  // biome-ignore lint/complexity/useMathMinMax: the days are ISO date strings, which compare as text
  return { from: monthStart < chartStart ? monthStart : chartStart, today: utcDay(nowMs), monthStart, chartStart };
}

/** The SQL sum of a row group's requests (reports_accepted counts reports, not requests). */
export const REQUESTS_SUM = "SUM(CASE WHEN outcome = 'reports_accepted' THEN 0 ELSE count END)";

/** One row per key, day and endpoint, with the total and the successful ones among them. */
export interface DailyTotals extends DailyUsage {
  key_id: string;
  ok: number;
}

/** usageOf's answer from the rows of the window, ordered by key and day. */
export function usageByKey(
  keyIds: readonly string[],
  rows: readonly DailyTotals[],
  days: number,
  nowMs: number,
): Map<string, KeyUsage> {
  const { today, monthStart, chartStart } = usageWindow(days, nowMs);
  const usage = new Map<string, KeyUsage>(
    keyIds.map((id) => [id, { today: {}, month: {}, ipQuotaUsed: 0, daily: [] }]),
  );
  for (const { key_id, day, endpoint, count, ok } of rows) {
    const u = usage.get(key_id)!;
    if (day >= monthStart) {
      u.month[endpoint] = (u.month[endpoint] ?? 0) + count;
      if (day === today) u.today[endpoint] = (u.today[endpoint] ?? 0) + count;
      if (endpoint === "ip") u.ipQuotaUsed += ok;
    }
    if (days > 0 && day >= chartStart) u.daily.push({ day, endpoint, count });
  }
  return usage;
}
