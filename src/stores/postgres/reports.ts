import type { SQL } from "bun";
import { boundedTransaction } from "./bounded-transaction.ts";
import type { NewReport, ReportCategory, StoredReport } from "../../reports/report.ts";
import {
  type AddLimits,
  type AddOutcome,
  type ReportChanges,
  type ReportComment,
  type ReportDeletion,
  type ReportFilter,
  type ReportRow,
  type ReportStore,
  ROWS_PER_PAGE,
  firstOfEach,
} from "../../reports/report-store.ts";

interface Row {
  key_id: string;
  key_name: string | null;
  ip: string;
  category: string;
  comment: string | null;
  reported_at: number;
}

const ROW = `key_id AS "keyId", ip, category, reported_at::float8 AS "reportedAtMs"`;

/** How long a report waits for a lock another session holds before its request is told to come back. */
const REPORT_LOCK_TIMEOUT = "2s";

/**
 * Local reports in PostgreSQL, shared by every instance. `add` commits a whole call in one
 * transaction before it returns, one key's calls one at a time (a transaction lock on the
 * key), so that two instances cannot both store the same report nor both spend the key's
 * last addresses of the day. Readers follow new rows by the writer's transaction id: every
 * row of a transaction older than a snapshot's xmin was committed before it, so reading from
 * the last xmin on misses none (and rereads a few). Deletions take one lock, so their log's
 * ids commit in order and are followed by id.
 */
export class PostgresReportStore implements ReportStore {
  constructor(private readonly sql: SQL) {}

  async add(keyId: string, reports: readonly NewReport[], nowMs: number, limits: AddLimits): Promise<AddOutcome[]> {
    const first = firstOfEach(reports);
    const candidates = reports.filter((_, i) => first[i]);
    return this.sql.begin(async (tx) => {
      await tx.unsafe(`SET LOCAL lock_timeout = '${REPORT_LOCK_TIMEOUT}'`);
      await tx`SELECT pg_advisory_xact_lock(hashtext('riskcheck-report:' || ${keyId}))`;
      const recent = await tx<{ ip: string; category: string }[]>`
          SELECT DISTINCT r.ip, r.category FROM reports r
          JOIN json_to_recordset(${JSON.stringify(candidates)}::text::json) AS x(ip text, category text) ON r.ip =
            x.ip AND r.category = x.category
          WHERE r.key_id = ${keyId} AND r.reported_at > ${limits.dedupSinceMs}`;
      const today = await tx<{ ip: string }[]>`
          SELECT DISTINCT r.ip FROM reports r JOIN json_to_recordset(${JSON.stringify(candidates)}::text::json) AS x(ip text) ON r.ip = x.ip
          WHERE r.key_id = ${keyId} AND r.reported_at >= ${limits.daySinceMs}`;
      const [{ n }] = await tx<
        { n: number }[]
      >`SELECT count(DISTINCT ip)::int AS n FROM reports WHERE key_id = ${keyId} AND reported_at >= ${limits.daySinceMs}`;
      const already = new Set(recent.map((r) => `${r.ip} ${r.category}`));
      const reportedToday = new Set(today.map((r) => r.ip));
      let used = n;
      const outcomes = reports.map((r, i): AddOutcome => {
        if (!first[i] || already.has(`${r.ip} ${r.category}`)) return "duplicate";
        if (!reportedToday.has(r.ip)) {
          if (used >= limits.dailyAddresses) return "limit_reached";
          used++;
          reportedToday.add(r.ip);
        }
        return "stored";
      });
      const fresh = reports.filter((_, i) => outcomes[i] === "stored");
      if (fresh.length > 0) {
        await tx`INSERT INTO reports (key_id, ip, category, comment, reported_at)
                   SELECT ${keyId}, x.ip, x.category, x.comment, ${nowMs} FROM
                     json_to_recordset(${JSON.stringify(fresh)}::text::json) AS x(ip text, category text, comment text)`;
      }
      return outcomes;
    });
  }

  async list({ ip, sinceMs, limit }: ReportFilter): Promise<StoredReport[]> {
    const rows = await this.sql<Row[]>`
      SELECT r.key_id, k.name AS key_name, r.ip, r.category, r.comment, r.reported_at::float8 AS reported_at
      FROM reports r LEFT JOIN api_keys k ON k.id = r.key_id
      WHERE (${ip ?? null}::text IS NULL OR r.ip = ${ip ?? null}) AND r.reported_at >= ${sinceMs ?? 0}
      ORDER BY r.reported_at DESC, r.id DESC LIMIT ${limit ?? null}`;
    return rows.map((row) => ({
      keyId: row.key_id,
      keyName: row.key_name ?? "",
      ip: row.ip,
      category: row.category as ReportCategory,
      comment: row.comment,
      reportedAtMs: row.reported_at,
    }));
  }

  async comments(ips: readonly string[], sinceMs: number, perKey: number): Promise<ReportComment[]> {
    const rows = await this.sql<ReportComment[]>`
      SELECT ip, key_id AS "keyId", category, comment, reported_at::float8 AS "reportedAtMs" FROM (
        SELECT ip, key_id, category, comment, reported_at,
               row_number() OVER (PARTITION BY ip, key_id ORDER BY reported_at DESC, id DESC) AS n
        FROM reports
        WHERE ip IN (SELECT json_array_elements_text(${JSON.stringify(ips)}::text::json))
          AND reported_at >= ${sinceMs} AND comment <> ''
      ) c WHERE n <= ${perKey} ORDER BY ip, key_id, reported_at DESC, n`;
    return [...rows];
  }

  async delete({ ip, keyId }: { readonly ip?: string; readonly keyId?: string }, nowMs: number): Promise<number> {
    if (ip === undefined && keyId === undefined) throw new Error("reports: a deletion names an address, a key or both");
    return this.deleting(
      { ip: ip ?? null, keyId: keyId ?? null, beforeMs: null },
      nowMs,
      (tx) =>
        tx`DELETE FROM reports WHERE (${ip ?? null}::text IS NULL OR ip = ${ip ?? null}) AND (${keyId ?? null}::text
          IS NULL OR key_id = ${keyId ?? null})`,
    );
  }

  async prune(beforeMs: number, nowMs: number): Promise<number> {
    return this.deleting({ ip: null, keyId: null, beforeMs }, nowMs, async (tx) => {
      await tx`DELETE FROM report_deletion_log WHERE deleted_at < ${beforeMs}`;
      return tx`DELETE FROM reports WHERE reported_at < ${beforeMs}`;
    });
  }

  async changes(
    cursor: string | null,
    windowStartMs: number,
    onRows: (rows: readonly ReportRow[]) => void,
  ): Promise<ReportChanges> {
    return this.sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx) => {
      const [{ xmin, deletion }] = await tx<{ xmin: string; deletion: string }[]>`
        SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin, coalesce(max(id), 0)::text AS deletion FROM report_deletion_log`;
      if (cursor === null) {
        for (let after = "0"; ; ) {
          const page = await tx<(ReportRow & { id: string })[]>`
            SELECT id::text AS id, ${tx.unsafe(ROW)} FROM reports WHERE reported_at >= ${windowStartMs} AND id >
              ${after}::bigint ORDER BY id LIMIT ${ROWS_PER_PAGE}`;
          if (page.length === 0) break;
          onRows(page);
          after = page.at(-1)!.id;
        }
        return { deletions: [], cursor: `${deletion}:${xmin}` };
      }
      const [seenDeletion, seenXmin] = cursor.split(":");
      const deletions = await tx<ReportDeletion[]>`
        SELECT ip, key_id AS "keyId", before_ms::float8 AS "beforeMs" FROM report_deletion_log WHERE id >
          ${seenDeletion}::bigint ORDER BY id`;
      onRows(await tx<ReportRow[]>`SELECT ${tx.unsafe(ROW)} FROM reports WHERE xid >= ${seenXmin}::text::xid8`);
      return { deletions, cursor: `${deletion}:${xmin}` };
    });
  }

  private async deleting(
    deletion: ReportDeletion,
    nowMs: number,
    run: (tx: SQL) => Promise<{ count: number }>,
  ): Promise<number> {
    return boundedTransaction(this.sql, async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtext('riskcheck-report-deletions'))`;
      const { count } = await run(tx);
      if (count > 0)
        await tx`INSERT INTO report_deletion_log (ip, key_id, before_ms, deleted_at) VALUES (${deletion.ip},
          ${deletion.keyId}, ${deletion.beforeMs}, ${nowMs})`;
      return count;
    });
  }
}
