import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SQL } from "bun";
import type { Database } from "bun:sqlite";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { openPostgres } from "../../src/stores/postgres/database.ts";
import { openDatabase } from "../../src/stores/sqlite/database.ts";
import { KEY_SETTING_ROWS } from "../../src/keys/key-settings.ts";
import { POSTGRES_SETUP_TIMEOUT_MS, freshDatabaseUrl, startTestPostgres } from "../support/postgres.ts";

/** One line per table, column and index, so that a difference reads as the lines only one side has. */
type Schema = string[];

/** What only PostgreSQL has, and why. SQLite has nothing of its own. */
const POSTGRES_ONLY = [
  // Instances share the monthly quota through leases; one SQLite server counts it in memory (limits/local-monthly-quota.ts).
  "table quota_leases",
  "column quota_leases.key_id not null primary key",
  "column quota_leases.month not null primary key",
  "column quota_leases.charged not null",
  // The schema version; SQLite keeps it in PRAGMA user_version.
  "table riskcheck_schema",
  "column riskcheck_schema.version not null",
  // Instances follow new reports by the writing transaction's id; SQLite's readers follow the row id.
  "column reports.xid not null",
  "index reports_by_xid on reports (xid)",
  // Pages of override lines go in byte order whatever the database's collation; SQLite's primary keys compare bytes already.
  "index email_overrides_in_order on email_overrides (domain)",
  "index ip_overrides_in_order on ip_overrides (target)",
];

/** Files of one wing that have no counterpart on the other, and why. */
const ONE_SIDED_FILES = {
  // Helpers of the database's own kind, not stores.
  sqlite: ["change-signal.ts", "checkpoint-worker.ts", "checkpoints.ts", "lock-wait.ts"],
  postgres: ["bounded-transaction.ts", "connection-url.ts", "quota-leases.ts"],
};

let sql: SQL | null = null;
let sqlite: Database | null = null;
beforeAll(async () => {
  await startTestPostgres();
  sql = await openPostgres(await freshDatabaseUrl());
}, POSTGRES_SETUP_TIMEOUT_MS);
afterAll(async () => {
  sqlite?.close();
  await sql?.close({ timeout: 5 });
});

function sqliteSchema(db: Database): Schema {
  const lines: Schema = [];
  const tables = db
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all();
  for (const { name: table } of tables) {
    lines.push(`table ${table}`);
    for (const c of db.query<{ name: string; notnull: number; pk: number }, []>(`PRAGMA table_info(${table})`).all()) {
      lines.push(`column ${table}.${c.name}${c.notnull || c.pk ? " not null" : ""}${c.pk ? " primary key" : ""}`);
    }
  }
  // Only the indexes a migration creates: those behind a primary key or UNIQUE have no SQL.
  const indexes = db
    .query<{ name: string; tbl_name: string }, []>(
      "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL",
    )
    .all();
  for (const { name, tbl_name } of indexes) {
    const columns = db
      .query<{ name: string }, []>(`PRAGMA index_info(${name})`)
      .all()
      .map((c) => c.name);
    lines.push(`index ${name} on ${tbl_name} (${columns.join(", ")})`);
  }
  return lines.sort();
}

async function postgresSchema(db: SQL): Promise<Schema> {
  const lines: Schema = [];
  const columns = await db<{ table_name: string; column_name: string; is_nullable: string; primary: boolean }[]>`
    SELECT c.table_name, c.column_name, c.is_nullable,
           EXISTS (SELECT 1 FROM information_schema.table_constraints t
                   JOIN information_schema.key_column_usage k USING (constraint_schema, constraint_name)
                   WHERE t.constraint_type = 'PRIMARY KEY' AND t.table_schema = c.table_schema
                     AND k.table_name = c.table_name AND k.column_name = c.column_name) AS primary
    FROM information_schema.columns c WHERE c.table_schema = current_schema()`;
  for (const table of new Set(columns.map((c) => c.table_name))) lines.push(`table ${table}`);
  for (const c of columns)
    lines.push(
      `column ${c.table_name}.${c.column_name}${c.is_nullable === "NO" ? " not null" : ""}${c.primary ? " primary key" : ""}`,
    );
  // Only the indexes a migration creates: those behind a constraint carry the constraint's name.
  const indexes = await db<{ indexname: string; tablename: string; indexdef: string }[]>`
    SELECT indexname, tablename, indexdef FROM pg_indexes
    WHERE schemaname = current_schema() AND indexname NOT IN (SELECT conname FROM pg_constraint)`;
  for (const { indexname, tablename, indexdef } of indexes) {
    // SQLite compares text byte by byte: PostgreSQL's "C" collation.
    const columnList = (/\(([^()]*)\)\s*$/.exec(indexdef)?.[1] ?? indexdef).replaceAll(' COLLATE "C"', "");
    lines.push(`index ${indexname} on ${tablename} (${columnList})`);
  }
  return lines.sort();
}

test("SQLite and PostgreSQL have the same tables, columns and indexes, but for what PostgreSQL needs to share a database between instances", async () => {
  sqlite = openDatabase(":memory:");
  const onSqlite = sqliteSchema(sqlite);
  const onPostgres = await postgresSchema(sql!);
  expect(onSqlite).toContain("index api_keys_name on api_keys (name)");
  expect(onSqlite.filter((line) => !onPostgres.includes(line))).toEqual([]);
  expect(onPostgres.filter((line) => !onSqlite.includes(line))).toEqual([...POSTGRES_ONLY].sort());
});

test("the SQLite and PostgreSQL wings hold a file of the same name for every store", () => {
  const wing = (side: "sqlite" | "postgres") =>
    readdirSync(join(import.meta.dir, "../../src/stores", side))
      .filter((f) => !ONE_SIDED_FILES[side].includes(f))
      .sort();
  expect(wing("sqlite")).toEqual(wing("postgres"));
  expect(wing("sqlite")).toContain("stores.ts");
});

test("every key setting (src/keys/key-settings.ts) has its column in both, and PostgreSQL tells the instances of its changes", async () => {
  const columns = KEY_SETTING_ROWS.map(([, s]) => s.column);
  const db = openDatabase(":memory:");
  const onSqlite = sqliteSchema(db);
  db.close();
  const onPostgres = await postgresSchema(sql!);
  for (const column of columns) {
    expect(onSqlite).toContainEqual(expect.stringMatching(new RegExp(`^column api_keys\\.${column}( |$)`)));
    expect(onPostgres).toContainEqual(expect.stringMatching(new RegExp(`^column api_keys\\.${column}( |$)`)));
  }
  const [{ definition }] = await sql!<{ definition: string }[]>`
    SELECT pg_get_triggerdef(oid) AS definition FROM pg_trigger WHERE tgname = 'api_keys_changed'`;
  const announced = /UPDATE OF (.*?) ON /.exec(definition)![1].split(", ");
  expect(columns.filter((c) => !announced.includes(c))).toEqual([]);
});
