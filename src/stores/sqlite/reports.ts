import type { Database, Statement } from "bun:sqlite";
import type { Writes } from "./lock-wait.ts";
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

/** How long a report waits for another process's write lock before its request is told to come back. */
const REPORT_LOCK_PATIENCE_MS = 2_000;

/**
 * Local reports in SQLite. `add` writes a whole call in one transaction, committed and
 * synced to disk before it returns; readers follow new rows by id, which SQLite's single
 * writer hands out in commit order, and deletions by their log's id.
 */
export class SqliteReportStore implements ReportStore {
  private readonly recent: Statement<{ found: number }, [string, string, string, number]>;
  private readonly reportedToday: Statement<{ found: number }, [string, string, number]>;
  private readonly addressesToday: Statement<{ n: number }, [string, number]>;
  private readonly insert: Statement<unknown, [string, string, string, string | null, number]>;

  constructor(
    private readonly db: Database,
    private readonly writes: Writes,
  ) {
    this.recent = db.query(
      "SELECT 1 AS found FROM reports WHERE key_id = ? AND ip = ? AND category = ? AND reported_at > ? LIMIT 1",
    );
    this.reportedToday = db.query(
      "SELECT 1 AS found FROM reports WHERE key_id = ? AND ip = ? AND reported_at >= ? LIMIT 1",
    );
    this.addressesToday = db.query("SELECT count(DISTINCT ip) AS n FROM reports WHERE key_id = ? AND reported_at >= ?");
    this.insert = db.query("INSERT INTO reports (key_id, ip, category, comment, reported_at) VALUES (?, ?, ?, ?, ?)");
  }

  async add(keyId: string, reports: readonly NewReport[], nowMs: number, limits: AddLimits): Promise<AddOutcome[]> {
    const first = firstOfEach(reports);
    const write = this.db.transaction(() => {
      let used = this.addressesToday.get(keyId, limits.daySinceMs)!.n;
      const newToday = new Set<string>();
      return reports.map((r, i): AddOutcome => {
        if (!first[i] || this.recent.get(keyId, r.ip, r.category, limits.dedupSinceMs) !== null) return "duplicate";
        if (!newToday.has(r.ip) && this.reportedToday.get(keyId, r.ip, limits.daySinceMs) === null) {
          if (used >= limits.dailyAddresses) return "limit_reached";
          used++;
          newToday.add(r.ip);
        }
        this.insert.run(keyId, r.ip, r.category, r.comment, nowMs);
        return "stored";
      });
    });
    return this.writes.run(() => {
      // The 200 promises the reports are on disk: this commit waits for the WAL's fsync,
      // which the connection's synchronous = NORMAL leaves to the next checkpoint.
      this.db.exec("PRAGMA synchronous = FULL");
      try {
        return write.immediate();
      } finally {
        this.db.exec("PRAGMA synchronous = NORMAL");
      }
    }, REPORT_LOCK_PATIENCE_MS);
  }

  async list({ ip, sinceMs, limit }: ReportFilter): Promise<StoredReport[]> {
    const rows = this.db
      .query<Row, [string | null, number, number]>(
        `SELECT r.key_id, k.name AS key_name, r.ip, r.category, r.comment, r.reported_at FROM reports r LEFT JOIN
          api_keys k ON k.id = r.key_id
         WHERE (?1 IS NULL OR r.ip = ?1) AND r.reported_at >= ?2 ORDER BY r.reported_at DESC, r.id DESC LIMIT ?3`,
      )
      .all(ip ?? null, sinceMs ?? 0, limit ?? -1);
    return rows.map(toStored);
  }

  async comments(ips: readonly string[], sinceMs: number, perKey: number): Promise<ReportComment[]> {
    return this.db
      .query<ReportComment, [string, number, number]>(
        `SELECT ip, keyId, category, comment, reportedAtMs FROM (
           SELECT ip, key_id AS keyId, category, comment, reported_at AS reportedAtMs,
                  row_number() OVER (PARTITION BY ip, key_id ORDER BY reported_at DESC, id DESC) AS n
           FROM reports WHERE ip IN (SELECT value FROM json_each(?1)) AND reported_at >= ?2 AND comment <> ''
         ) WHERE n <= ?3 ORDER BY ip, keyId, reportedAtMs DESC, n`,
      )
      .all(JSON.stringify(ips), sinceMs, perKey);
  }

  async delete({ ip, keyId }: { readonly ip?: string; readonly keyId?: string }, nowMs: number): Promise<number> {
    if (ip === undefined && keyId === undefined) throw new Error("reports: a deletion names an address, a key or both");
    return this.deleting(
      { ip: ip ?? null, keyId: keyId ?? null, beforeMs: null },
      nowMs,
      () =>
        this.db
          .query("DELETE FROM reports WHERE (?1 IS NULL OR ip = ?1) AND (?2 IS NULL OR key_id = ?2)")
          .run(ip ?? null, keyId ?? null).changes,
    );
  }

  async prune(beforeMs: number, nowMs: number): Promise<number> {
    return this.deleting({ ip: null, keyId: null, beforeMs }, nowMs, () => {
      this.db.query("DELETE FROM report_deletion_log WHERE deleted_at < ?").run(beforeMs);
      return this.db.query("DELETE FROM reports WHERE reported_at < ?").run(beforeMs).changes;
    });
  }

  async changes(
    cursor: string | null,
    windowStartMs: number,
    onRows: (rows: readonly ReportRow[]) => void,
  ): Promise<ReportChanges> {
    return this.db
      .transaction((): ReportChanges => {
        const lastDeletion =
          this.db.query<{ id: number | null }, []>("SELECT max(id) AS id FROM report_deletion_log").get()!.id ?? 0;
        const lastRow = this.db.query<{ id: number | null }, []>("SELECT max(id) AS id FROM reports").get()!.id ?? 0;
        if (cursor === null) {
          let page: ReportRow[] = [];
          for (const row of this.db
            .query<ReportRow, [number]>(
              "SELECT key_id AS keyId, ip, category, reported_at AS reportedAtMs FROM reports WHERE reported_at >= ?",
            )
            .iterate(windowStartMs)) {
            page.push(row);
            if (page.length === ROWS_PER_PAGE) {
              onRows(page);
              page = [];
            }
          }
          onRows(page);
          return { deletions: [], cursor: `${lastDeletion}:${lastRow}` };
        }
        const [seenDeletion, seenRow] = cursor.split(":").map(Number);
        const deletions = this.db
          .query<ReportDeletion, [number]>(
            "SELECT ip, key_id AS keyId, before_ms AS beforeMs FROM report_deletion_log WHERE id > ? ORDER BY id",
          )
          .all(seenDeletion);
        onRows(
          this.db
            .query<ReportRow, [number, number]>(
              "SELECT key_id AS keyId, ip, category, reported_at AS reportedAtMs FROM reports WHERE id > ? AND id <= ? ORDER BY id",
            )
            .all(seenRow, lastRow),
        );
        return { deletions, cursor: `${lastDeletion}:${lastRow}` };
      })
      .deferred();
  }

  private deleting(deletion: ReportDeletion, nowMs: number, run: () => number): Promise<number> {
    const write = this.db.transaction(() => {
      const deleted = run();
      if (deleted > 0) {
        this.db
          .query("INSERT INTO report_deletion_log (ip, key_id, before_ms, deleted_at) VALUES (?, ?, ?, ?)")
          .run(deletion.ip, deletion.keyId, deletion.beforeMs, nowMs);
      }
      return deleted;
    });
    return this.writes.run(() => write.immediate());
  }
}

function toStored(row: Row): StoredReport {
  return {
    keyId: row.key_id,
    keyName: row.key_name ?? "",
    ip: row.ip,
    category: row.category as ReportCategory,
    comment: row.comment,
    reportedAtMs: row.reported_at,
  };
}
