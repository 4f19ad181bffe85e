import type { SQL } from "bun";
import type { NewReport, ReportCategory, StoredReport } from "../../reports/report.ts";
import { type ReportChanges, type ReportFilter, type ReportRow, type ReportStore, firstOfEach } from "../../reports/report-store.ts";

interface Row {
  key_id: string;
  key_name: string | null;
  ip: string;
  category: string;
  comment: string | null;
  reported_at: number;
}

const ROW = `key_id AS "keyId", ip, category, reported_at::float8 AS "reportedAtMs"`;

/**
 * Local reports in PostgreSQL, shared by every instance. `add` commits a whole call in one
 * transaction before it returns, one key's calls one at a time (a transaction lock on the
 * key), so that two instances cannot both store the same report. Readers follow new rows by
 * the writer's transaction id: every row of a transaction older than a snapshot's xmin was
 * committed before it, so reading from the last xmin on misses none (and rereads a few).
 */
export class PostgresReportStore implements ReportStore {
  constructor(private readonly sql: SQL) {}

  async add(keyId: string, reports: readonly NewReport[], nowMs: number, dedupSinceMs: number): Promise<boolean[]> {
    const first = firstOfEach(reports);
    const candidates = reports.filter((_, i) => first[i]);
    return this.sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtext('riskcheck-report:' || ${keyId}))`;
      const recent = await tx<{ ip: string; category: string }[]>`
        SELECT DISTINCT r.ip, r.category FROM reports r
        JOIN json_to_recordset(${JSON.stringify(candidates)}::text::json) AS x(ip text, category text) ON r.ip = x.ip AND r.category = x.category
        WHERE r.key_id = ${keyId} AND r.reported_at > ${dedupSinceMs}`;
      const already = new Set(recent.map((r) => `${r.ip} ${r.category}`));
      const stored = reports.map((r, i) => first[i] && !already.has(`${r.ip} ${r.category}`));
      const fresh = reports.filter((_, i) => stored[i]);
      if (fresh.length > 0) {
        await tx`INSERT INTO reports (key_id, ip, category, comment, reported_at)
                 SELECT ${keyId}, x.ip, x.category, x.comment, ${nowMs} FROM json_to_recordset(${JSON.stringify(fresh)}::text::json) AS x(ip text, category text, comment text)`;
      }
      return stored;
    });
  }

  async list({ ip, sinceMs, limit }: ReportFilter): Promise<StoredReport[]> {
    const rows = await this.sql<Row[]>`
      SELECT r.key_id, k.name AS key_name, r.ip, r.category, r.comment, r.reported_at::float8 AS reported_at
      FROM reports r LEFT JOIN api_keys k ON k.id = r.key_id
      WHERE (${ip ?? null}::text IS NULL OR r.ip = ${ip ?? null}) AND r.reported_at >= ${sinceMs ?? 0}
      ORDER BY r.reported_at DESC, r.id DESC LIMIT ${limit ?? null}`;
    return rows.map((row) => ({ keyId: row.key_id, keyName: row.key_name ?? "", ip: row.ip, category: row.category as ReportCategory, comment: row.comment, reportedAtMs: row.reported_at }));
  }

  async delete(ip: string, keyId?: string): Promise<number> {
    return this.deleting((tx) => tx`DELETE FROM reports WHERE ip = ${ip} AND (${keyId ?? null}::text IS NULL OR key_id = ${keyId ?? null})`);
  }

  async prune(beforeMs: number): Promise<number> {
    return this.deleting((tx) => tx`DELETE FROM reports WHERE reported_at < ${beforeMs}`);
  }

  async changes(cursor: string | null, windowStartMs: number): Promise<ReportChanges> {
    const [{ generation, xmin }] = await this.sql<{ generation: string; xmin: string }[]>`
      SELECT generation::text AS generation, pg_snapshot_xmin(pg_current_snapshot())::text AS xmin FROM report_deletions`;
    const [seenGeneration, seenXmin] = cursor === null ? [null, null] : cursor.split(":");
    const reset = seenGeneration !== generation;
    const rows = reset
      ? await this.sql<ReportRow[]>`SELECT ${this.sql.unsafe(ROW)} FROM reports WHERE reported_at >= ${windowStartMs}`
      : await this.sql<ReportRow[]>`SELECT ${this.sql.unsafe(ROW)} FROM reports WHERE xid >= ${seenXmin}::text::xid8`;
    return { reset, rows, cursor: `${generation}:${xmin}` };
  }

  private async deleting(run: (tx: SQL) => Promise<{ count: number }>): Promise<number> {
    return this.sql.begin(async (tx) => {
      const { count } = await run(tx);
      if (count > 0) await tx`UPDATE report_deletions SET generation = generation + 1`;
      return count;
    });
  }
}
