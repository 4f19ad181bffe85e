import type { Database, Statement } from "bun:sqlite";
import { writeWhenUnlocked } from "./lock-wait.ts";
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

/**
 * Local reports in SQLite. `add` writes a whole call in one transaction, committed and
 * synced to disk before it returns; readers follow new rows by id, which SQLite's single writer hands
 * out in commit order, and reread everything when the deletion count moved.
 */
export class SqliteReportStore implements ReportStore {
  private readonly recent: Statement<{ found: number }, [string, string, string, number]>;
  private readonly insert: Statement<unknown, [string, string, string, string | null, number]>;

  constructor(private readonly db: Database) {
    this.recent = db.query("SELECT 1 AS found FROM reports WHERE key_id = ? AND ip = ? AND category = ? AND reported_at > ? LIMIT 1");
    this.insert = db.query("INSERT INTO reports (key_id, ip, category, comment, reported_at) VALUES (?, ?, ?, ?, ?)");
  }

  async add(keyId: string, reports: readonly NewReport[], nowMs: number, dedupSinceMs: number): Promise<boolean[]> {
    const first = firstOfEach(reports);
    const write = this.db.transaction(() =>
      reports.map((r, i) => {
        if (!first[i] || this.recent.get(keyId, r.ip, r.category, dedupSinceMs) !== null) return false;
        this.insert.run(keyId, r.ip, r.category, r.comment, nowMs);
        return true;
      }),
    );
    return writeWhenUnlocked(this.db, () => {
      // The 200 promises the reports are on disk: this commit waits for the WAL's fsync,
      // which the connection's synchronous = NORMAL leaves to the next checkpoint.
      this.db.exec("PRAGMA synchronous = FULL");
      try {
        return write.immediate();
      } finally {
        this.db.exec("PRAGMA synchronous = NORMAL");
      }
    });
  }

  async list({ ip, sinceMs, limit }: ReportFilter): Promise<StoredReport[]> {
    const rows = this.db
      .query<Row, [string | null, number, number]>(
        `SELECT r.key_id, k.name AS key_name, r.ip, r.category, r.comment, r.reported_at FROM reports r LEFT JOIN api_keys k ON k.id = r.key_id
         WHERE (?1 IS NULL OR r.ip = ?1) AND r.reported_at >= ?2 ORDER BY r.reported_at DESC, r.id DESC LIMIT ?3`,
      )
      .all(ip ?? null, sinceMs ?? 0, limit ?? -1);
    return rows.map(toStored);
  }

  async delete(ip: string, keyId?: string): Promise<number> {
    return this.deleting(() =>
      keyId === undefined ? this.db.query("DELETE FROM reports WHERE ip = ?").run(ip).changes : this.db.query("DELETE FROM reports WHERE ip = ? AND key_id = ?").run(ip, keyId).changes,
    );
  }

  async prune(beforeMs: number): Promise<number> {
    return this.deleting(() => this.db.query("DELETE FROM reports WHERE reported_at < ?").run(beforeMs).changes);
  }

  async changes(cursor: string | null, windowStartMs: number): Promise<ReportChanges> {
    return this.db
      .transaction((): ReportChanges => {
        const generation = this.db.query<{ generation: number }, []>("SELECT generation FROM report_deletions").get()!.generation;
        const [seenGeneration, seenId] = cursor === null ? [-1, 0] : cursor.split(":").map(Number);
        const reset = seenGeneration !== generation;
        const rows = reset
          ? this.db.query<ReportRow & { id: number }, [number]>("SELECT id, key_id AS keyId, ip, category, reported_at AS reportedAtMs FROM reports WHERE reported_at >= ? ORDER BY id").all(windowStartMs)
          : this.db.query<ReportRow & { id: number }, [number]>("SELECT id, key_id AS keyId, ip, category, reported_at AS reportedAtMs FROM reports WHERE id > ? ORDER BY id").all(seenId);
        const lastId = reset ? (this.db.query<{ id: number | null }, []>("SELECT max(id) AS id FROM reports").get()!.id ?? 0) : (rows.at(-1)?.id ?? seenId);
        return { reset, rows, cursor: `${generation}:${lastId}` };
      })
      .deferred();
  }

  private deleting(run: () => number): Promise<number> {
    const write = this.db.transaction(() => {
      const deleted = run();
      if (deleted > 0) this.db.exec("UPDATE report_deletions SET generation = generation + 1");
      return deleted;
    });
    return writeWhenUnlocked(this.db, () => write.immediate());
  }
}

function toStored(row: Row): StoredReport {
  return { keyId: row.key_id, keyName: row.key_name ?? "", ip: row.ip, category: row.category as ReportCategory, comment: row.comment, reportedAtMs: row.reported_at };
}
