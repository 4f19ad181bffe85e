import { existsSync } from "node:fs";
import type { ParsedCommandLine } from "./command-spec.ts";
import type { DB_MIGRATE } from "./commands.ts";
import { loadConfig } from "../app/config.ts";
import { UsageError } from "../app/usage-error.ts";
import { MAX_KEY_LIMIT } from "../keys/key-settings.ts";
import { redactedDatabaseUrl } from "../stores/postgres/connection-url.ts";
import { copySqliteToPostgres } from "../stores/copy-sqlite-to-postgres.ts";
import { withStores } from "./database.ts";

/** `db migrate [--from-sqlite FILE]`: brings the schema up to date, and copies a SQLite database into an empty PostgreSQL one. */
export async function migrateDatabase({ values }: ParsedCommandLine<typeof DB_MIGRATE>): Promise<number> {
  const config = loadConfig(values, process.env);
  const source = values["from-sqlite"];
  if (source !== undefined && config.databaseUrl === null)
    throw new UsageError("--from-sqlite copies into PostgreSQL: give --database-url or RISKCHECK_DATABASE_URL too");
  if (source !== undefined && !existsSync(source)) throw new UsageError(`--from-sqlite ${source}: no such file`);
  if (source === undefined) {
    await withStores(config, async (stores) => console.log(`${stores.description}: the schema is up to date.`));
    return 0;
  }
  const copied = await copySqliteToPostgres(source, config.databaseUrl!);
  await withStores(config, (stores, audit) =>
    audit.record("database.copied", stores.description, {
      detail:
        `from SQLite ${source}: ${copied.keys} keys, ${copied.reports} reports, ` +
        `${copied.emailOverrides + copied.ipOverrides} override lines, ${copied.auditEvents} audit events`,
    }),
  );
  console.log(
    `Copied ${source} into ${redactedDatabaseUrl(config.databaseUrl!)}: ${copied.keys} keys, ${copied.usageRows} ` +
      `usage rows, ${copied.sessions} dashboard sessions, ${copied.signInFailures} sign-in lock-out records, ` +
      `${copied.reports} local reports, ${copied.emailOverrides} email overrides, ${copied.ipOverrides} IP ` +
      `overrides, ${copied.policyRules} assessment rules, ${copied.auditEvents} audit events` +
      `${copied.adminPassword ? ", the dashboard password" : ""}; this month's quota counts start from its usage.`,
  );
  if (copied.limitedKeys.length)
    console.log(
      `Note: the rate or quota of ${copied.limitedKeys.join(", ")} was above ${MAX_KEY_LIMIT}, the most ` +
        `PostgreSQL holds, and was copied as ${MAX_KEY_LIMIT}.`,
    );
  return 0;
}
