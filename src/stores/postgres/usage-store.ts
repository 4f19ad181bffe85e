import type { SQL } from "bun";
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
import { utcDay } from "../../keys/usage.ts";

/**
 * Daily usage counters in PostgreSQL, added to by every instance's flushes. Rows and keys
 * are written in one order, so two instances flushing at once cannot deadlock.
 */
export class PostgresUsageStore implements UsageStore {
  constructor(private readonly sql: SQL) {}

  async flush(rows: readonly UsageRow[], lastUsed: ReadonlyMap<string, LastUse>): Promise<void> {
    if (rows.length === 0 && lastUsed.size === 0) return;
    const counts = summed(rows);
    const touched = [...lastUsed].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, { at, ip }]) => ({ id, at, ip }));
    await this.sql.begin(async (tx) => {
      if (counts.length > 0) {
        await tx`INSERT INTO usage_daily (key_id, day, endpoint, outcome, count)
                 SELECT key_id, day, endpoint, outcome, count
                 FROM json_to_recordset(${JSON.stringify(counts)}::text::json) AS r(key_id text, day text, endpoint
                   text, outcome text, count bigint)
                 ON CONFLICT (key_id, day, endpoint, outcome) DO UPDATE SET count = usage_daily.count + excluded.count`;
      }
      if (touched.length > 0) {
        await tx`UPDATE api_keys k SET last_used_at = r.at, last_used_ip = r.ip
                 FROM json_to_recordset(${JSON.stringify(touched)}::text::json) AS r(id text, at text, ip text)
                 WHERE k.id = r.id AND (k.last_used_at IS NULL OR k.last_used_at < r.at)`;
      }
    });
  }

  async usageOf(keyIds: readonly string[], days: number, nowMs: number): Promise<Map<string, KeyUsage>> {
    const rows = await this.sql<DailyTotals[]>`
      SELECT key_id, day, endpoint, ${this.sql.unsafe(REQUESTS_SUM)}::float8 AS count, SUM(CASE WHEN outcome = 'ok'
        THEN count ELSE 0 END)::float8 AS ok
      FROM usage_daily
      WHERE day >= ${usageWindow(days, nowMs).from} AND key_id IN (SELECT json_array_elements_text(${JSON.stringify(keyIds)}::text::json))
      GROUP BY key_id, day, endpoint ORDER BY key_id, day`;
    return usageByKey(keyIds, rows, days, nowMs);
  }

  async outcomesOf(keyId: string, days: number, nowMs: number): Promise<UsageRow[]> {
    return this.sql<UsageRow[]>`
      SELECT key_id AS "keyId", day, endpoint, outcome, count::float8 AS count FROM usage_daily
      WHERE key_id = ${keyId} AND day >= ${utcDay(nowMs - (days - 1) * 86_400_000)} ORDER BY day, endpoint, outcome`;
  }
}

/** One row per key, day, endpoint and outcome (a statement may not update a row twice), in key order. */
function summed(
  rows: readonly UsageRow[],
): { key_id: string; day: string; endpoint: string; outcome: string; count: number }[] {
  const byCell = new Map<string, { key_id: string; day: string; endpoint: string; outcome: string; count: number }>();
  for (const r of rows) {
    const cell = `${r.keyId}\u0000${r.day}\u0000${r.endpoint}\u0000${r.outcome}`;
    const found = byCell.get(cell);
    if (found) found.count += r.count;
    else byCell.set(cell, { key_id: r.keyId, day: r.day, endpoint: r.endpoint, outcome: r.outcome, count: r.count });
  }
  return [...byCell].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, row]) => row);
}
