import type { Database } from "bun:sqlite";
import type { AuditEntry, AuditEvent } from "../../audit/audit-event.ts";
import { type AuditFilter, type AuditLog, type AuditPage, type AuditRow, entryOfRow } from "../../audit/audit-log.ts";
import type { Writes } from "./lock-wait.ts";

const COLUMNS = "id, at, action, outcome, target, actor, channel, change, detail";

export class SqliteAuditLog implements AuditLog {
  constructor(
    private readonly db: Database,
    private readonly writes: Writes,
  ) {}

  async append(event: AuditEvent, once?: string): Promise<AuditEntry | null> {
    const insert = this.db.query<AuditRow, (string | null)[]>(
      `INSERT INTO audit_log (at, action, outcome, target, actor, channel, change, detail, once)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (once) DO NOTHING RETURNING ${COLUMNS}`,
    );
    const row = await this.writes.run(() =>
      insert.get(
        event.at,
        event.action,
        event.outcome,
        event.target,
        event.actor,
        event.channel,
        event.change === null ? null : JSON.stringify(event.change),
        event.detail,
        once ?? null,
      ),
    );
    return row ? entryOfRow(row) : null;
  }

  async read(filter: AuditFilter, page: AuditPage): Promise<AuditEntry[]> {
    const newest = page.order === "newest_first";
    const cursor = newest ? page.before : page.after;
    const rows = this.db
      .query<AuditRow, (string | number | null)[]>(
        `SELECT ${COLUMNS} FROM audit_log
         WHERE (?1 IS NULL OR at >= ?1)
           AND (?2 IS NULL OR action = ?2 OR substr(action, 1, length(?2) + 1) = ?2 || '.')
           AND (?3 IS NULL OR instr(lower(target), lower(?3)) > 0)
           AND (?4 IS NULL OR id ${newest ? "<" : ">"} ?4)
         ORDER BY id ${newest ? "DESC" : "ASC"} LIMIT ?5`,
      )
      .all(filter.since ?? null, filter.action ?? null, filter.target ?? null, cursor ?? null, page.limit);
    return rows.map(entryOfRow);
  }

  async prune(before: string): Promise<number> {
    const prune = this.db.transaction(() => {
      this.db.query("UPDATE audit_retention SET pruned_before = max(pruned_before, ?1)").run(before);
      return this.db.query("DELETE FROM audit_log WHERE at < ?").run(before).changes;
    });
    return this.writes.run(() => prune.immediate());
  }
}
