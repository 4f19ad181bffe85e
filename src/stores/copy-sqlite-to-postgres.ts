import { openDatabase } from "./sqlite/database.ts";
import { MAX_KEY_LIMIT } from "../keys/key-settings.ts";
import { KEY_COLUMNS } from "./key-row.ts";
import { openPostgres } from "./postgres/database.ts";

export interface CopyReport {
  keys: number;
  usageRows: number;
  sessions: number;
  signInFailures: number;
  reports: number;
  emailOverrides: number;
  ipOverrides: number;
  /** The assessment rules copied (the set is one document). */
  policyRules: number;
  auditEvents: number;
  adminPassword: boolean;
  /** Keys whose rate or quota was above what PostgreSQL holds (set by older versions) and was copied as MAX_KEY_LIMIT. */
  limitedKeys: string[];
}

/** The tables copied, in an order that keeps foreign keys satisfied, with their columns. */
const TABLES = [
  ["api_keys", KEY_COLUMNS.split(", ")],
  ["usage_daily", ["key_id", "day", "endpoint", "outcome", "count"]],
  ["admin_password", ["id", "password_hash", "updated_at"]],
  ["admin_sessions", ["token_hash", "csrf_token", "created_at", "expires_at"]],
  ["sign_in_failures", ["client", "failures", "window_start", "locked_until", "lockouts", "last_failure"]],
  ["reports", ["key_id", "ip", "category", "comment", "reported_at"]],
  ["email_overrides", ["domain", "action", "reason", "author", "created_at", "until", "key_id"]],
  ["ip_overrides", ["target", "action", "reason", "author", "created_at", "until", "key_id"]],
  ["policy_counts", ["day", "event", "rule", "outcome", "count"]],
  // PostgreSQL numbers the events anew, in the order SQLite wrote them.
  ["audit_log", ["at", "action", "outcome", "target", "actor", "channel", "change", "detail", "once"]],
] as const;

const BATCH_ROWS = 5_000;

/**
 * Copies a SQLite database (migrated to the current schema first) into an empty
 * PostgreSQL one in a single transaction, and charges each key's successful IP checks
 * of this month to its quota count. Refuses a PostgreSQL database that already has keys.
 */
export async function copySqliteToPostgres(
  sqlitePath: string,
  databaseUrl: string,
  nowMs = Date.now(),
): Promise<CopyReport> {
  const source = openDatabase(sqlitePath);
  const sql = await openPostgres(databaseUrl);
  try {
    const counts = new Map<string, number>();
    const limitedKeys: string[] = [];
    await sql.begin(async (tx) => {
      const [{ keys }] = await tx<{ keys: number }[]>`SELECT count(*)::int AS keys FROM api_keys`;
      if (keys > 0)
        throw new Error(
          `the PostgreSQL database already has ${keys} key(s); copy into an empty one (or add keys with riskcheck keys create)`,
        );
      for (const [table, columns] of TABLES) {
        const order = table === "audit_log" ? " ORDER BY id" : "";
        const rows = source
          .query<Record<string, unknown>, []>(`SELECT ${columns.join(", ")} FROM ${table}${order}`)
          .all();
        if (table === "api_keys")
          for (const row of rows) if (capLimits(row)) limitedKeys.push(`${row.name} (${row.id})`);
        for (let i = 0; i < rows.length; i += BATCH_ROWS)
          await tx`INSERT INTO ${tx(table)} ${tx(rows.slice(i, i + BATCH_ROWS), ...columns)}`;
        counts.set(table, rows.length);
      }
      // The rules' one row is there in both from the schema: PostgreSQL's takes SQLite's set and revision.
      const policy = source
        .query<{ revision: number; rules: string; updated_at: string | null }, []>(
          "SELECT revision, rules, updated_at FROM policy",
        )
        .get()!;
      await tx`UPDATE policy SET revision = ${policy.revision}, rules = ${policy.rules}, updated_at = ${policy.updated_at}`;
      counts.set("policy", (JSON.parse(policy.rules) as { rules: unknown[] }).rules.length);
      const month = new Date(nowMs).toISOString().slice(0, 7);
      await tx`INSERT INTO quota_leases (key_id, month, charged)
               SELECT key_id, ${month}, SUM(count) FROM usage_daily
               WHERE endpoint IN ('ip', 'assess') AND outcome = 'ok' AND day >= ${`${month}-01`} GROUP BY key_id`;
    });
    return {
      keys: counts.get("api_keys")!,
      usageRows: counts.get("usage_daily")!,
      sessions: counts.get("admin_sessions")!,
      signInFailures: counts.get("sign_in_failures")!,
      reports: counts.get("reports")!,
      emailOverrides: counts.get("email_overrides")!,
      ipOverrides: counts.get("ip_overrides")!,
      policyRules: counts.get("policy")!,
      auditEvents: counts.get("audit_log")!,
      adminPassword: counts.get("admin_password")! > 0,
      limitedKeys,
    };
  } finally {
    source.close();
    await sql.close();
  }
}

/** Brings a key's limits into PostgreSQL's INTEGER range (a rate of 2^31 a minute is no limit either); true when one was lowered. */
function capLimits(row: Record<string, unknown>): boolean {
  let capped = false;
  for (const column of ["rate_per_minute", "ip_quota_per_month"]) {
    if (typeof row[column] === "number" && (row[column] as number) > MAX_KEY_LIMIT) {
      row[column] = MAX_KEY_LIMIT;
      capped = true;
    }
  }
  return capped;
}
