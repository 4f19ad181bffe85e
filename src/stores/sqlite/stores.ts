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
import type { SchemaChange, Stores } from "../stores.ts";
import { SqliteAuditLog } from "./audit-log.ts";

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

/** One instance's stores in one SQLite database; its quota is counted in memory, seeded from usage. */
export function sqliteStores(
  db: Database,
  keysChanged: ChangeSignal,
  description: string,
  schemaChange: SchemaChange | null = null,
): Stores {
  const usage = new SqliteUsageStore(db);
  return {
    keys: new SqliteKeyStore(db, keysChanged),
    usage,
    sessions: new SqliteSessionStore(db),
    adminPassword: new SqliteAdminPasswordStore(db),
    signInThrottle: new SqliteSignInThrottle(db),
    emailOverrides: new SqliteOverrideStore(db),
    ipOverrides: new SqliteIpOverrideStore(db),
    policy: new SqlitePolicyStore(db),
    reports: new SqliteReportStore(db),
    audit: new SqliteAuditLog(db),
    schemaChange,
    description: `SQLite ${description}`,
    replacedOnDisk: () => null,
    serving: async ({ now }) => {
      const startedMs = now();
      return {
        keys: new SqliteKeyIndex(db, keysChanged, now),
        quota: new LocalMonthlyQuota(usage.ipQuotaUsedThisMonth(startedMs), startedMs),
        tick: async () => {},
        release: async () => {},
      };
    },
    close: async () => {
      db.close();
      keysChanged.close();
    },
  };
}
