import type { Database } from "bun:sqlite";
import type { LineChanges, LineCounts, LineFilter, LineStore, OverrideRow } from "../../email/overrides.ts";
import type { LineTable, StoredLine } from "../line-table.ts";
import type { Writes } from "./lock-wait.ts";

/** Override lines of one kind in SQLite (email-overrides.ts, ip-overrides.ts); database.ts has the triggers that log and count them. */
export class SqliteLineStore<L extends StoredLine> implements LineStore<L> {
  private readonly select: string;

  constructor(
    private readonly db: Database,
    private readonly writes: Writes,
    private readonly t: LineTable<L>,
  ) {
    this.select = `SELECT ${t.column} AS target, action, reason, author, created_at, until, key_id FROM ${t.table}`;
  }

  async list(): Promise<L[]> {
    return this.db.query<OverrideRow, []>(`${this.select} ORDER BY ${this.t.column}`).all().map(this.t.lineOf);
  }

  async page(filter: LineFilter, after: string | null, limit: number): Promise<L[]> {
    const { column } = this.t;
    const where: string[] = [];
    const values: (string | number)[] = [];
    // Only the conditions given, so that each page is a range of the primary key or of the (action, target) index.
    if (filter.action !== undefined) {
      where.push("action = ?");
      values.push(filter.action);
    }
    if (after !== null) {
      where.push(`${column} > ?`);
      values.push(after);
    }
    if (filter.prefix) {
      where.push(`${column} >= ? AND ${column} < ?`);
      values.push(filter.prefix, `${filter.prefix}\u{10ffff}`);
    }
    const sql = `${this.select}${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY ${column} LIMIT ?`;
    return this.db
      .query<OverrideRow, (string | number)[]>(sql)
      .all(...values, limit)
      .map(this.t.lineOf);
  }

  async find(target: string): Promise<L | null> {
    const row = this.db.query<OverrideRow, [string]>(`${this.select} WHERE ${this.t.column} = ?`).get(target);
    return row && this.t.lineOf(row);
  }

  async put(line: L): Promise<void> {
    const { table, column } = this.t;
    const insert = this.db.query(
      `INSERT INTO ${table} (${column}, action, reason, author, created_at, until, key_id) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (${column}) DO UPDATE SET action = excluded.action, reason = excluded.reason, author = excluded.author,
         created_at = excluded.created_at, until = excluded.until, key_id = excluded.key_id`,
    );
    await this.writes.run(() =>
      insert.run(
        this.t.targetOf(line),
        line.action,
        line.reason,
        line.author,
        line.created,
        line.until,
        line.keyId ?? null,
      ),
    );
  }

  async remove(target: string): Promise<boolean> {
    const remove = this.db.query(`DELETE FROM ${this.t.table} WHERE ${this.t.column} = ?`);
    return (await this.writes.run(() => remove.run(target))).changes > 0;
  }

  async counts(keyId: string | null): Promise<LineCounts> {
    const rows = this.db
      .query<{ key_id: string; lines: number }, [string, string]>(
        "SELECT key_id, lines FROM override_counts WHERE kind = ? AND key_id IN ('', ?)",
      )
      .all(this.t.kind, keyId ?? "");
    return {
      total: rows.find((r) => r.key_id === "")?.lines ?? 0,
      byKey: keyId === null ? 0 : (rows.find((r) => r.key_id === keyId)?.lines ?? 0),
    };
  }

  async changesSince(since: number | null): Promise<LineChanges<L>> {
    return this.writes.committed(() =>
      this.db
        .transaction((): LineChanges<L> => {
          const { generation } = this.db
            .query<{ generation: number }, []>("SELECT generation FROM override_generation")
            .get()!;
          if (since === generation) return { generation, changed: [] };
          const { oldest } = this.db
            .query<{ oldest: number | null }, []>("SELECT min(seq) AS oldest FROM override_changes")
            .get()!;
          if (since === null || since > generation || oldest === null || oldest > since + 1)
            return {
              generation,
              all: this.db.query<OverrideRow, []>(`${this.select} ORDER BY ${this.t.column}`).all().map(this.t.lineOf),
            };
          const rows = this.db
            .query<OverrideRow & { changed: string }, [string, number]>(
              `SELECT c.target AS changed, l.${this.t.column} AS target, l.action, l.reason, l.author, l.created_at, l.until, l.key_id
               FROM override_changes c LEFT JOIN ${this.t.table} l ON l.${this.t.column} = c.target
               WHERE c.kind = ? AND c.seq > ? ORDER BY c.seq`,
            )
            .all(this.t.kind, since);
          return {
            generation,
            changed: rows.map((row) => ({
              target: row.changed,
              line: row.target === null ? null : this.t.lineOf(row),
            })),
          };
        })
        .deferred(),
    );
  }
}
