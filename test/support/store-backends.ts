import { afterAll, afterEach } from "bun:test";
import type { SQL } from "bun";
import { Database } from "bun:sqlite";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgres } from "../../src/stores/postgres/database.ts";
import { postgresStores } from "../../src/stores/postgres/stores.ts";
import { openSqliteStores } from "../../src/stores/sqlite/stores.ts";
import type { Stores } from "../../src/stores/stores.ts";
import { freshDatabaseUrl } from "./postgres.ts";

/** A database the shared store tests run against: each test starts empty. */
export interface StoreBackend {
  readonly name: string;
  /** Empty stores for one test. */
  fresh(): Promise<Stores>;
  /** Another connection to the database of the last fresh(), as another instance or the CLI has. */
  another(): Promise<Stores>;
  /** Another process's hold on the reports table of the last fresh() (a write lock); the function given back lets go. */
  lockReports(): Promise<() => Promise<void>>;
  /** Runs SQL on the database of the last fresh() as a hand at the database's own shell would. */
  execute(statement: string): Promise<void>;
}

const opened: Stores[] = [];
afterEach(async () => {
  for (const stores of opened.splice(0)) await stores.close();
});

const pools: SQL[] = [];
/** The next test file that asks opens pools of its own: these are closed. */
const forgetPools: (() => void)[] = [];
afterAll(async () => {
  for (const sql of pools.splice(0)) await sql.close();
  for (const forget of forgetPools) forget();
});

function track(stores: Stores): Stores {
  opened.push(stores);
  return stores;
}

function sqliteBackend(): StoreBackend {
  let path = "";
  return {
    name: "SQLite",
    fresh: async () => {
      path = join(mkdtempSync(join(tmpdir(), "rk-stores-")), "riskcheck.sqlite");
      return track(openSqliteStores(path));
    },
    another: async () => track(openSqliteStores(path)),
    execute: async (statement) => {
      const db = new Database(path);
      try {
        db.exec(statement);
      } finally {
        db.close();
      }
    },
    lockReports: async () => {
      const db = new Database(path);
      db.exec("BEGIN IMMEDIATE");
      return async () => {
        db.exec("ROLLBACK");
        db.close();
      };
    },
  };
}

/** One database per test file, emptied before each test, reached through two connection pools. */
function postgresBackend(): StoreBackend {
  let pair: Promise<[SQL, SQL]> | null = null;
  forgetPools.push(() => (pair = null));
  const open = () =>
    (pair ??= freshDatabaseUrl().then(async (url) => {
      const both: [SQL, SQL] = [await openPostgres(url), await openPostgres(url)];
      pools.push(...both);
      return both;
    }));
  return {
    name: "PostgreSQL",
    fresh: async () => {
      const [sql] = await open();
      // The audit log refuses a TRUNCATE (append-only): the test's owner lifts that for the moment.
      await sql.begin(async (tx) => {
        await tx`ALTER TABLE audit_log DISABLE TRIGGER audit_log_not_truncated`;
        await tx`TRUNCATE reports, report_deletion_log, audit_log, api_keys, usage_daily, quota_leases, admin_password,
                 admin_sessions, sign_in_failures, email_overrides, ip_overrides, policy_counts`;
        await tx`ALTER TABLE audit_log ENABLE TRIGGER audit_log_not_truncated`;
      });
      await sql`UPDATE policy SET revision = 0, rules = '{"rules":[]}', updated_at = NULL`;
      return postgresStores(sql, "test");
    },
    another: async () => postgresStores((await open())[1], "test"),
    execute: async (statement) => {
      await (await open())[1].unsafe(statement);
    },
    lockReports: async () => {
      const connection = await (await open())[1].reserve();
      await connection`BEGIN`;
      await connection`LOCK TABLE reports IN ACCESS EXCLUSIVE MODE`;
      return async () => {
        await connection`ROLLBACK`;
        connection.release();
      };
    },
  };
}

export const STORE_BACKENDS: readonly StoreBackend[] = [sqliteBackend(), postgresBackend()];
