import type { Database } from "bun:sqlite";
import {
  type DailyTotals,
  type KeyUsage,
  type LastUse,
  REQUESTS_SUM,
  type UsageRow,
  type UsageStore,
  usageByKey,
  usageWindow,
} from "../../keys/usage-store.ts";
import { utcDay, utcMonthStart } from "../../keys/usage.ts";
import type { Writes } from "./lock-wait.ts";

/** Daily usage counters in SQLite. */
export class SqliteUsageStore implements UsageStore {
  constructor(
    private readonly db: Database,
    private readonly writes: Writes,
  ) {}

  async flush(rows: readonly UsageRow[], lastUsed: ReadonlyMap<string, LastUse>): Promise<void> {
    if (rows.length === 0 && lastUsed.size === 0) return;
    const add = this.db.query(
      `INSERT INTO usage_daily (key_id, day, endpoint, outcome, count) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key_id, day, endpoint, outcome) DO UPDATE SET count = count + excluded.count`,
    );
    const touch = this.db.query(
      "UPDATE api_keys SET last_used_at = ?1, last_used_ip = ?3 WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at < ?1)",
    );
    const write = this.db.transaction(() => {
      for (const r of rows) add.run(r.keyId, r.day, r.endpoint, r.outcome, r.count);
      for (const [id, { at, ip }] of lastUsed) touch.run(at, id, ip);
    });
    await this.writes.run(() => write.immediate());
  }

  /** Successful IP checks per key since the first day of the month containing `nowMs`: the quota's starting point. */
  ipQuotaUsedThisMonth(nowMs: number): Map<string, number> {
    const rows = this.db
      .query<{ key_id: string; used: number }, [string]>(
        "SELECT key_id, SUM(count) AS used FROM usage_daily " +
          "WHERE endpoint IN ('ip', 'assess') AND outcome = 'ok' AND day >= ? GROUP BY key_id",
      )
      .all(utcMonthStart(nowMs));
    return new Map(rows.map((r) => [r.key_id, r.used]));
  }

  async usageOf(keyIds: readonly string[], days: number, nowMs: number): Promise<Map<string, KeyUsage>> {
    const rows = this.db
      .query<DailyTotals, [string, string]>(
        `SELECT key_id, day, endpoint, ${REQUESTS_SUM} AS count, SUM(CASE WHEN outcome = 'ok' THEN count ELSE 0 END) AS ok
         FROM usage_daily WHERE day >= ?1 AND key_id IN (SELECT value FROM json_each(?2))
         GROUP BY key_id, day, endpoint ORDER BY key_id, day`,
      )
      .all(usageWindow(days, nowMs).from, JSON.stringify(keyIds));
    return usageByKey(keyIds, rows, days, nowMs);
  }

  async outcomesOf(keyId: string, days: number, nowMs: number): Promise<UsageRow[]> {
    return this.db
      .query<UsageRow, [string, string]>(
        "SELECT key_id AS keyId, day, endpoint, outcome, count FROM usage_daily WHERE key_id = ? AND day >= ? " +
          "ORDER BY day, endpoint, outcome",
      )
      .all(keyId, utcDay(nowMs - (days - 1) * 86_400_000));
  }
}
