import type { SQL } from "bun";
import type { LineChanges, LineCounts, LineFilter, LineStore, OverrideRow } from "../../email/overrides.ts";
import type { LineTable, StoredLine } from "../line-table.ts";

/** Override lines of one kind in PostgreSQL (email-overrides.ts, ip-overrides.ts); database.ts has the triggers that log and count them. */
export class PostgresLineStore<L extends StoredLine> implements LineStore<L> {
  private readonly columns: string;

  constructor(
    private readonly sql: SQL,
    private readonly t: LineTable<L>,
  ) {
    this.columns = `${t.column} AS target, action, reason, author, created_at, until, key_id`;
  }

  async list(): Promise<L[]> {
    const { sql, t } = this;
    const rows = await sql<
      OverrideRow[]
    >`SELECT ${sql.unsafe(this.columns)} FROM ${sql(t.table)} ORDER BY ${this.inOrder()}`;
    return rows.map(t.lineOf);
  }

  /** Targets compared byte by byte, as SQLite compares them, whatever the database's collation: the indexes are made so. */
  private inOrder() {
    return this.sql.unsafe(`${this.t.column} COLLATE "C"`);
  }

  async page(filter: LineFilter, after: string | null, limit: number): Promise<L[]> {
    const { sql, t } = this;
    const column = this.inOrder();
    // Only the conditions given, so that each page is a range of the (target) or (action, target) index.
    const conditions = [
      filter.action === undefined ? null : sql`action = ${filter.action}`,
      after === null ? null : sql`${column} > ${after}`,
      filter.prefix ? sql`${column} >= ${filter.prefix} AND ${column} < ${`${filter.prefix}\u{10ffff}`}` : null,
    ].filter((c) => c !== null);
    const where = conditions.reduce((all, c, i) => (i === 0 ? sql`WHERE ${c}` : sql`${all} AND ${c}`), sql``);
    const rows = await sql<OverrideRow[]>`SELECT ${sql.unsafe(this.columns)} FROM ${sql(t.table)} ${where}
                                          ORDER BY ${column} LIMIT ${limit}`;
    return rows.map(t.lineOf);
  }

  async find(target: string): Promise<L | null> {
    const { sql, t } = this;
    const [row] = await sql<
      OverrideRow[]
    >`SELECT ${sql.unsafe(this.columns)} FROM ${sql(t.table)} WHERE ${sql(t.column)} = ${target}`;
    return row ? t.lineOf(row) : null;
  }

  async put(line: L): Promise<void> {
    const { sql, t } = this;
    const target = t.targetOf(line);
    await sql`INSERT INTO ${sql(t.table)} (${sql(t.column)}, action, reason, author, created_at, until, key_id)
              VALUES (${target}, ${line.action}, ${line.reason}, ${line.author}, ${line.created}, ${line.until}, ${line.keyId ?? null})
              ON CONFLICT (${sql(t.column)}) DO UPDATE SET action = excluded.action, reason = excluded.reason, author = excluded.author,
                created_at = excluded.created_at, until = excluded.until, key_id = excluded.key_id`;
  }

  async remove(target: string): Promise<boolean> {
    const { sql, t } = this;
    const rows = await sql`DELETE FROM ${sql(t.table)} WHERE ${sql(t.column)} = ${target} RETURNING 1`;
    return rows.length > 0;
  }

  async counts(keyId: string | null): Promise<LineCounts> {
    // FOR UPDATE: inside an act the counts hold until it commits, so that two acts at once cannot both take the last line.
    const rows = await this.sql<{ key_id: string; lines: string }[]>`
      SELECT key_id, lines FROM override_counts WHERE kind = ${this.t.kind} AND key_id IN ('', ${keyId ?? ""})
      ORDER BY key_id FOR UPDATE`;
    const of = (id: string) => Number(rows.find((r) => r.key_id === id)?.lines ?? 0);
    return { total: of(""), byKey: keyId === null ? 0 : of(keyId) };
  }

  async changesSince(since: number | null): Promise<LineChanges<L>> {
    const { sql, t } = this;
    // Generations are handed out in commit order (database.ts): every change up to the one read is committed and logged.
    const [{ generation, oldest }] = await sql<{ generation: string; oldest: string | null }[]>`
      SELECT generation, (SELECT min(seq) FROM override_changes) AS oldest FROM override_generation`;
    const now = Number(generation);
    if (since === now) return { generation: now, changed: [] };
    if (since === null || since > now || oldest === null || Number(oldest) > since + 1)
      return { generation: now, all: await this.list() };
    const rows = await sql<(OverrideRow & { changed: string })[]>`
      SELECT c.target AS changed, l.${sql(t.column)} AS target, l.action, l.reason, l.author, l.created_at, l.until, l.key_id
      FROM override_changes c LEFT JOIN ${sql(t.table)} l ON l.${sql(t.column)} = c.target
      WHERE c.kind = ${t.kind} AND c.seq > ${since} AND c.seq <= ${now} ORDER BY c.seq`;
    return {
      generation: now,
      changed: rows.map((row) => ({ target: row.changed, line: row.target === null ? null : t.lineOf(row) })),
    };
  }
}
