import type { SQL } from "bun";
import { boundedTransaction } from "./bounded-transaction.ts";
import type { AuditEntry, AuditEvent } from "../../audit/audit-event.ts";
import { type AuditFilter, type AuditLog, type AuditPage, type AuditRow, entryOfRow } from "../../audit/audit-log.ts";

export class PostgresAuditLog implements AuditLog {
  constructor(private readonly sql: SQL) {}

  async append(event: AuditEvent, once?: string): Promise<AuditEntry | null> {
    const change = event.change === null ? null : JSON.stringify(event.change);
    const [row] = await this.sql<AuditRow[]>`
      INSERT INTO audit_log (at, action, outcome, target, actor, channel, change, detail, once)
      VALUES (${event.at}, ${event.action}, ${event.outcome}, ${event.target}, ${event.actor}, ${event.channel},
        ${change}, ${event.detail}, ${once ?? null})
      ON CONFLICT (once) DO NOTHING
      RETURNING id, at, action, outcome, target, actor, channel, change, detail`;
    return row ? entryOfRow(row) : null;
  }

  async read(filter: AuditFilter, page: AuditPage): Promise<AuditEntry[]> {
    const since = filter.since ?? null;
    const action = filter.action ?? null;
    const target = filter.target ?? null;
    const newest = page.order === "newest_first";
    const cursor = (newest ? page.before : page.after) ?? null;
    const rows = await this.sql<AuditRow[]>`
      SELECT id, at, action, outcome, target, actor, channel, change, detail FROM audit_log
      WHERE (${since}::text IS NULL OR at >= ${since})
        AND (${action}::text IS NULL OR action = ${action} OR starts_with(action, ${action} || '.'))
        AND (${target}::text IS NULL OR strpos(lower(target), lower(${target})) > 0)
        AND (${cursor}::bigint IS NULL OR ${newest ? this.sql`id < ${cursor}` : this.sql`id > ${cursor}`})
      ORDER BY ${newest ? this.sql`id DESC` : this.sql`id ASC`} LIMIT ${page.limit}`;
    return rows.map(entryOfRow);
  }

  async prune(before: string): Promise<number> {
    return boundedTransaction(this.sql, async (tx) => {
      await tx`UPDATE audit_retention SET pruned_before = greatest(pruned_before, ${before})`;
      const rows = await tx`DELETE FROM audit_log WHERE at < ${before} RETURNING id`;
      return rows.length;
    });
  }
}
