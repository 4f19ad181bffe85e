import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { AdminPassword } from "../../src/dashboard/admin-password.ts";
import { redactedDatabaseUrl } from "../../src/stores/postgres/connection-url.ts";
import { openPostgresStores } from "../../src/stores/postgres/stores.ts";
import { POSTGRES_SETUP_TIMEOUT_MS, freshDatabaseUrl, startTestPostgres } from "../support/postgres.ts";
import { CLI, runCliAsync } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

setDefaultTimeout(scaled(30_000));

beforeAll(startTestPostgres, POSTGRES_SETUP_TIMEOUT_MS);

/** `riskcheck admin set-password`, the password on standard input. */
async function setPassword(password: string, env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, CLI, "admin", "set-password"], {
    env: { ...process.env, ...env },
    stdin: new Blob([password]),
    stdout: "pipe",
    stderr: "pipe",
    timeout: scaled(30_000),
    killSignal: "SIGKILL",
  });
  return { code: await proc.exited, stdout: await new Response(proc.stdout).text() };
}

test("every command that opens the database works on PostgreSQL", async () => {
  const env = { RISKCHECK_DATABASE_URL: await freshDatabaseUrl() };
  const stores = await openPostgresStores(env.RISKCHECK_DATABASE_URL);
  try {
    await stores.keys.create({ name: "to-revoke" });
    for (let i = 0; i < 5; i++) await stores.signInThrottle.begin("203.0.113.7", Date.now());
    const [password, unlocked, revoked, migrated] = await Promise.all([
      setPassword("correct horse battery", env),
      runCliAsync(["admin", "unlock", "203.0.113.7"], env),
      runCliAsync(["keys", "revoke", "to-revoke"], env),
      runCliAsync(["db", "migrate"], env),
    ]);
    expect(password).toEqual({
      code: 0,
      stdout: "Dashboard password set; existing dashboard sessions were signed out.\n",
    });
    expect(await (await AdminPassword.open(stores.adminPassword, null)).verify("correct horse battery")).toBe(true);
    expect(unlocked.stdout).toBe("Lifted the dashboard sign-in lock-out of 203.0.113.7.\n");
    expect((await stores.signInThrottle.begin("203.0.113.7", Date.now())).wait).toBe(0);
    expect(revoked.stdout).toMatch(/^Revoked key_\S+ "to-revoke" at /);
    expect((await stores.keys.list())[0].revokedAt).not.toBeNull();
    expect(migrated.stdout).toBe(
      `PostgreSQL ${redactedDatabaseUrl(env.RISKCHECK_DATABASE_URL)}: the schema is up to date.\n`,
    );
  } finally {
    await stores.close();
  }
});
