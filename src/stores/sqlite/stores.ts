import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { SqliteAdminPasswordStore } from "./admin-password.ts";
import { SqliteSessionStore } from "./sessions.ts";
import { SqliteSignInThrottle } from "./sign-in-throttle.ts";
import { openDatabase } from "./database.ts";
import { SqliteOverrideStore } from "./email-overrides.ts";
import { SqliteIpOverrideStore } from "./ip-overrides.ts";
import { SqlitePolicyStore } from "./policy.ts";
import { type ChangeSignal, openChangeSignal } from "./change-signal.ts";
import { SqliteKeyIndex } from "./key-index.ts";
import { SqliteKeyStore } from "./key-store.ts";
import { SqliteUsageStore } from "./usage-store.ts";
import { LocalMonthlyQuota } from "../../limits/local-monthly-quota.ts";
import { SqliteReportStore } from "./reports.ts";
import type { SchemaChange, StoreWrites, Stores } from "../stores.ts";
import { SqliteAuditLog } from "./audit-log.ts";
import { SqliteWrites, type Writes } from "./lock-wait.ts";
import { checkpointElsewhere } from "./checkpoints.ts";

/** The file beside the database through which processes announce changes to keys. */
function signalPath(dbPath: string): string {
  return `${dbPath}-signal`;
}

/**
 * `forServing`: no busy timeout, so no lock held elsewhere blocks the server's event loop
 * (writes wait in writeWhenUnlocked), and a database it cannot write to is refused.
 */
export function openSqliteStores(path: string, forServing = false): Stores {
  let schemaChange: SchemaChange | null = null;
  const stores = sqliteStores(
    openDatabase(path, forServing ? 0 : undefined, forServing, (from, to) => (schemaChange = { from, to })),
    openChangeSignal(signalPath(path)),
    path,
    schemaChange,
  );
  const opened = fileIdentity(path);
  return {
    ...stores,
    replacedOnDisk: () => {
      const now = fileIdentity(path);
      if (opened === null) return null;
      if (now === null) return `${path}: the database file was deleted while in use`;
      return now === opened ? null : `${path}: the database file was replaced while in use (a restore with mv?)`;
    },
  };
}

/** Which file is at `path` (device and inode), or null when none is. */
function fileIdentity(path: string): string | null {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat ? `${stat.dev}:${stat.ino}` : null;
}

/** The stores an act writes, their writes going through `writes`. */
function storeWrites(db: Database, writes: Writes, keysChanged: ChangeSignal): StoreWrites {
  return {
    keys: new SqliteKeyStore(db, writes, keysChanged),
    adminPassword: new SqliteAdminPasswordStore(db, writes),
    emailOverrides: new SqliteOverrideStore(db, writes),
    ipOverrides: new SqliteIpOverrideStore(db, writes),
    policy: new SqlitePolicyStore(db, writes),
    reports: new SqliteReportStore(db, writes),
    audit: new SqliteAuditLog(db, writes),
  };
}

/** One instance's stores in one SQLite database; its quota is counted in memory, seeded from usage. */
export function sqliteStores(
  db: Database,
  keysChanged: ChangeSignal,
  description: string,
  schemaChange: SchemaChange | null = null,
): Stores {
  const writes = new SqliteWrites(db);
  const usage = new SqliteUsageStore(db, writes);
  return {
    ...storeWrites(db, writes, keysChanged),
    usage,
    sessions: new SqliteSessionStore(db, writes),
    signInThrottle: new SqliteSignInThrottle(db, writes),
    transaction: (work) => writes.transaction((inAct) => work(storeWrites(db, inAct, keysChanged))),
    schemaChange,
    description: `SQLite ${description}`,
    replacedOnDisk: () => null,
    serving: async ({ now, logError }) => {
      const startedMs = now();
      // A database in memory has no WAL to checkpoint.
      const checkpoints = db.filename && db.filename !== ":memory:" ? checkpointElsewhere(db, logError) : null;
      return {
        keys: new SqliteKeyIndex(db, keysChanged, now),
        quota: new LocalMonthlyQuota(usage.ipQuotaUsedThisMonth(startedMs), startedMs),
        tick: async () => {},
        release: async () => checkpoints?.stop(),
      };
    },
    close: async () => {
      db.close();
      keysChanged.close();
    },
  };
}
