import type { Database } from "bun:sqlite";
import type { KeyStore } from "./key-store.ts";
import { type Endpoint, type Outcome, utcDay, utcMonthStart } from "./usage.ts";

export interface UsageRow {
  keyId: string;
  day: string;
  endpoint: Endpoint;
  outcome: Outcome;
  count: number;
}

export interface DailyUsage {
  day: string;
  endpoint: Endpoint;
  count: number;
}

export interface KeyUsage {
  today: Partial<Record<Endpoint, number>>;
  month: Partial<Record<Endpoint, number>>;
  /** Successful IP checks this month: what the quota counts. */
  ipQuotaUsed: number;
  daily: DailyUsage[];
}

/** Daily usage counters in SQLite, written in batches by the usage recorder. */
export class UsageStore {
  constructor(
    private readonly db: Database,
    private readonly keys: KeyStore,
  ) {}

  /** Adds the rows and last-used times in one transaction. */
  flush(rows: readonly UsageRow[], lastUsed: ReadonlyMap<string, string>): void {
    if (rows.length === 0 && lastUsed.size === 0) return;
    const add = this.db.query(
      `INSERT INTO usage_daily (key_id, day, endpoint, outcome, count) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key_id, day, endpoint, outcome) DO UPDATE SET count = count + excluded.count`,
    );
    this.db
      .transaction(() => {
        for (const r of rows) add.run(r.keyId, r.day, r.endpoint, r.outcome, r.count);
        this.keys.touch(lastUsed);
      })
      .immediate();
  }

  /** Successful IP checks per key since the first day of the month containing `nowMs`. */
  ipQuotaUsedThisMonth(nowMs: number): Map<string, number> {
    const rows = this.db
      .query<{ key_id: string; used: number }, [string]>(
        "SELECT key_id, SUM(count) AS used FROM usage_daily WHERE endpoint = 'ip' AND outcome = 'ok' AND day >= ? GROUP BY key_id",
      )
      .all(utcMonthStart(nowMs));
    return new Map(rows.map((r) => [r.key_id, r.used]));
  }

  /**
   * Each of `keyIds`'s requests today and this month (all outcomes) and its requests per
   * day over the last `days` days, oldest first: one aggregate query however many keys.
   */
  usageOf(keyIds: readonly string[], days: number, nowMs: number): Map<string, KeyUsage> {
    const today = utcDay(nowMs);
    const monthStart = utcMonthStart(nowMs);
    const chartStart = utcDay(nowMs - (days - 1) * 86_400_000);
    const rows = this.db
      .query<DailyUsage & { key_id: string; ok: number }, [string, string]>(
        `SELECT key_id, day, endpoint, SUM(count) AS count, SUM(CASE WHEN outcome = 'ok' THEN count ELSE 0 END) AS ok
         FROM usage_daily WHERE day >= ?1 AND key_id IN (SELECT value FROM json_each(?2))
         GROUP BY key_id, day, endpoint ORDER BY key_id, day`,
      )
      .all(monthStart < chartStart ? monthStart : chartStart, JSON.stringify(keyIds));
    const usage = new Map<string, KeyUsage>(keyIds.map((id) => [id, { today: {}, month: {}, ipQuotaUsed: 0, daily: [] }]));
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
}
