import type { SQL } from "bun";
import { LeasedMonthlyQuota } from "../../limits/leased-monthly-quota.ts";
import { PostgresAdminPasswordStore } from "./admin-password.ts";
import { redactedDatabaseUrl } from "./connection-url.ts";
import { openPostgres } from "./database.ts";
import { PostgresKeyIndex } from "./key-index.ts";
import { PostgresOverrideStore } from "./email-overrides.ts";
import { PostgresIpOverrideStore } from "./ip-overrides.ts";
import { PostgresPolicyStore } from "./policy.ts";
import { PostgresKeyStore } from "./key-store.ts";
import { PostgresQuotaLeases } from "./quota-leases.ts";
import { PostgresSessionStore } from "./sessions.ts";
import { PostgresSignInThrottle } from "./sign-in-throttle.ts";
import { PostgresUsageStore } from "./usage-store.ts";
import { PostgresReportStore } from "./reports.ts";
import type { SchemaChange, StoreWrites, Stores } from "../stores.ts";
import { PostgresAuditLog } from "./audit-log.ts";
import { actTransaction } from "./bounded-transaction.ts";

export async function openPostgresStores(url: string): Promise<Stores> {
  let schemaChange: SchemaChange | null = null;
  const sql = await openPostgres(url, (from, to) => (schemaChange = { from, to }));
  return postgresStores(sql, redactedDatabaseUrl(url), schemaChange);
}

/** The stores an act writes, over `sql`: the pool, or an act's transaction. */
function storeWrites(sql: SQL): StoreWrites {
  return {
    keys: new PostgresKeyStore(sql),
    adminPassword: new PostgresAdminPasswordStore(sql),
    emailOverrides: new PostgresOverrideStore(sql),
    ipOverrides: new PostgresIpOverrideStore(sql),
    policy: new PostgresPolicyStore(sql),
    reports: new PostgresReportStore(sql),
    audit: new PostgresAuditLog(sql),
  };
}

/**
 * Stores shared by several instances in one PostgreSQL database: keys reach every
 * instance by notification, and the quota is leased from one count.
 */
export function postgresStores(sql: SQL, description: string, schemaChange: SchemaChange | null = null): Stores {
  return {
    ...storeWrites(sql),
    usage: new PostgresUsageStore(sql),
    sessions: new PostgresSessionStore(sql),
    signInThrottle: new PostgresSignInThrottle(sql),
    transaction: (work) => actTransaction(sql, (tx) => work(storeWrites(tx))),
    schemaChange,
    description: `PostgreSQL ${description}`,
    replacedOnDisk: () => null,
    serving: async ({ now, logError }) => {
      const keys = await PostgresKeyIndex.open(sql, logError);
      const quota = await LeasedMonthlyQuota.open(new PostgresQuotaLeases(sql), now, logError);
      return {
        keys,
        quota,
        tick: (nowMs) => quota.tick(nowMs),
        release: async () => {
          await quota.close();
          await keys.close();
        },
      };
    },
    close: () => sql.close(),
  };
}
