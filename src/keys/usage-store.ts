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

export interface UsageTotals {
  today: Partial<Record<Endpoint, number>>;
  month: Partial<Record<Endpoint, number>>;
  /** Successful IP checks this month: what the quota counts. */
  ipQuotaUsed: number;
}

export interface DailyUsage {
  day: string;
  endpoint: Endpoint;
  count: number;
}

/** `key_id IN` the JSON array of ids in parameter 2: one statement however many keys. */
const JSON_IDS = "(SELECT value FROM json_each(?2))";

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

  /** Requests of each of `keyIds` per endpoint, today and this month (all outcomes). */
  totals(keyIds: readonly string[], nowMs: number): Map<string, UsageTotals> {
    const today = utcDay(nowMs);
    const rows = this.db
      .query<{ key_id: string; day: string; endpoint: Endpoint; outcome: Outcome; count: number }, [string, string]>(
        `SELECT key_id, day, endpoint, outcome, count FROM usage_daily WHERE day >= ?1 AND key_id IN ${JSON_IDS}`,
      )
      .all(utcMonthStart(nowMs), JSON.stringify(keyIds));
    const totals = new Map<string, UsageTotals>();
    for (const r of rows) {
      let t = totals.get(r.key_id);
      if (!t) totals.set(r.key_id, (t = { today: {}, month: {}, ipQuotaUsed: 0 }));
      t.month[r.endpoint] = (t.month[r.endpoint] ?? 0) + r.count;
      if (r.day === today) t.today[r.endpoint] = (t.today[r.endpoint] ?? 0) + r.count;
      if (r.endpoint === "ip" && r.outcome === "ok") t.ipQuotaUsed += r.count;
    }
    return totals;
  }

  /** Requests per day of each of `keyIds` over the last `days` days, oldest first, for charts; one query for all. */
  daily(keyIds: readonly string[], days: number, nowMs: number): Map<string, DailyUsage[]> {
    const since = utcDay(nowMs - (days - 1) * 86_400_000);
    const rows = this.db
      .query<DailyUsage & { key_id: string }, [string, string]>(
        `SELECT key_id, day, endpoint, SUM(count) AS count FROM usage_daily WHERE day >= ?1 AND key_id IN ${JSON_IDS} GROUP BY key_id, day, endpoint ORDER BY key_id, day`,
      )
      .all(since, JSON.stringify(keyIds));
    const byKey = new Map<string, DailyUsage[]>(keyIds.map((id) => [id, []]));
    for (const { key_id, ...row } of rows) byKey.get(key_id)!.push(row);
    return byKey;
  }
}
