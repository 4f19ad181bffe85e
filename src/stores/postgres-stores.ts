import type { SQL } from "bun";
import { LeasedMonthlyQuota } from "../limits/leased-monthly-quota.ts";
import { PostgresAdminPasswordStore } from "../postgres/admin-password.ts";
import { redactedDatabaseUrl } from "../postgres/connection-url.ts";
import { openPostgres } from "../postgres/database.ts";
import { PostgresKeyIndex } from "../postgres/key-index.ts";
import { PostgresOverrideStore } from "../postgres/email-overrides.ts";
import { PostgresKeyStore } from "../postgres/key-store.ts";
import { PostgresQuotaLeases } from "../postgres/quota-leases.ts";
import { PostgresSessionStore } from "../postgres/sessions.ts";
import { PostgresSignInThrottle } from "../postgres/sign-in-throttle.ts";
import { PostgresUsageStore } from "../postgres/usage-store.ts";
import { PostgresReportStore } from "./postgres/reports.ts";
import type { Stores } from "./stores.ts";

export async function openPostgresStores(url: string): Promise<Stores> {
  return postgresStores(await openPostgres(url), redactedDatabaseUrl(url));
}

/**
 * Stores shared by several instances in one PostgreSQL database: keys reach every
 * instance by notification, and the quota is leased from one count.
 */
export function postgresStores(sql: SQL, description: string): Stores {
  return {
    keys: new PostgresKeyStore(sql),
    usage: new PostgresUsageStore(sql),
    sessions: new PostgresSessionStore(sql),
    adminPassword: new PostgresAdminPasswordStore(sql),
    signInThrottle: new PostgresSignInThrottle(sql),
    emailOverrides: new PostgresOverrideStore(sql),
    reports: new PostgresReportStore(sql),
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
