import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { POSTGRES_SETUP_TIMEOUT_MS, freshDatabaseUrl, startTestPostgres } from "./support/postgres.ts";
import { runCliAsync } from "./support/processes.ts";
import { scaled } from "./support/slowness.ts";

// Some twenty CLI runs a database, each a process start.
setDefaultTimeout(scaled(60_000));
beforeAll(startTestPostgres, POSTGRES_SETUP_TIMEOUT_MS);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The CLI as `ops` on this host, run through sudo by `alice`. */
const run = (args: string[], env: Record<string, string>, stdin?: string) =>
  runCliAsync(args, { USER: "ops", SUDO_USER: "alice", ...env }, stdin);

const DATABASES = [
  {
    name: "SQLite",
    env: async (dir: string) => ({ RISKCHECK_DB: join(dir, "riskcheck.sqlite") }),
  },
  {
    name: "PostgreSQL",
    env: async () => ({ RISKCHECK_DATABASE_URL: await freshDatabaseUrl() }),
  },
];

describe.each(DATABASES)("$name", (database) => {
  test("every administrative command leaves its event, with the CLI's user and host, and no secret anywhere in the log", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rk-audit-cli-"));
    dirs.push(dir);
    const lines = join(dir, "audit.jsonl");
    const env = { ...(await database.env(dir)), RISKCHECK_AUDIT_LOG: lines };
    const ok = async (args: string[], stdin?: string) => {
      const result = await run(args, env, stdin);
      expect(result.stderr.replace(/^riskcheck: made the new database .*\n/, "")).toBe("");
      expect(result.code).toBe(0);
      return result.stdout;
    };
    const created = JSON.parse(await ok(["keys", "create", "--name", "billing", "--json"]));
    await ok(["keys", "update", "billing", "--rate-per-minute", "60", "--allow-from", "10.0.0.0/8"]);
    const rotated = JSON.parse(await ok(["keys", "rotate", "billing", "--grace", "1h", "--json"]));
    await ok(["keys", "revoke", created.id]);
    expect((await run(["keys", "revoke", created.id], env)).code).toBe(1);
    await ok(["email", "deny", "mailinator.example", "--reason", "throwaway", "--until", "2099-01-01"]);
    await ok(["email", "remove", "mailinator.example"]);
    await ok(["ip", "deny", "81.2.69.0/24", "--reason", "credential stuffing"]);
    await ok(["ip", "allow", "0.0.0.0/0", "--reason", "a drill", "--force"]);
    expect((await run(["ip", "remove", "81.2.70.1"], env)).code).toBe(2);
    await ok(["reports", "delete", "--ip", "192.0.2.9"]);
    const password = "correct horse battery staple";
    await ok(["admin", "set-password"], password);
    await ok(["admin", "set-password"], `${password} 2`);
    await ok(["admin", "unlock", "192.0.2.1"]);

    const listed = JSON.parse(await ok(["audit", "list", "--json"]));
    expect(listed.map((e: { action: string; outcome: string }) => `${e.action} ${e.outcome}`).reverse()).toEqual([
      "database.migrated succeeded",
      "key.created succeeded",
      "key.updated succeeded",
      "key.rotated succeeded",
      "key.revoked succeeded",
      "key.revoked failed",
      "email_override.added succeeded",
      "email_override.removed succeeded",
      "ip_override.added succeeded",
      "ip_override.added succeeded",
      "ip_override.removed failed",
      "reports.deleted succeeded",
      "admin_password.set succeeded",
      "admin_password.changed succeeded",
      "sign_in.unlocked succeeded",
    ]);
    for (const event of listed)
      expect(event).toMatchObject({ actor: `alice via sudo as ops@${hostname()}`, channel: "cli" });
    const byAction = (action: string) => listed.find((e: { action: string }) => e.action === action);
    expect(byAction("key.updated")).toMatchObject({
      target: `${created.id} (billing)`,
      change: { ratePerMinute: { before: null, after: 60 }, allowedNetworks: { before: [], after: ["10.0.0.0/8"] } },
    });
    expect(byAction("email_override.added").change).toEqual({
      action: { before: null, after: "deny" },
      reason: { before: null, after: "throwaway" },
      until: { before: null, after: "2099-01-02T00:00:00.000Z" },
    });
    expect(byAction("ip_override.removed")).toMatchObject({
      target: "81.2.70.1",
      detail: "there was no line for it",
    });
    expect(byAction("reports.deleted")).toMatchObject({ target: "address 192.0.2.9", detail: "0 report(s)" });
    expect(listed.find((e: { target: string }) => e.target === "0.0.0.0/0")).toMatchObject({
      action: "ip_override.added",
      detail: "forced: a range broader than /8",
    });

    // Export: one JSON object a line, oldest first, the same events; the file the setting names, the same again.
    const exported = await ok(["audit", "export", "--since", "2000-01-01"]);
    const exportedEvents = exported
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(exportedEvents.map(({ log, ...event }) => (expect(log).toBe("riskcheck.audit"), event))).toEqual(
      [...listed].reverse(),
    );
    const shipped = readFileSync(lines, "utf8");
    // The file also has the event of the export's own… nothing: reading records nothing.
    expect(shipped).toBe(exported);

    const everything = [JSON.stringify(listed), exported, shipped, await ok(["audit", "list"])].join("\n");
    for (const secret of [created.key, rotated.key, password, `${password} 2`])
      expect(everything).not.toContain(secret);

    // Filters.
    const revoked = JSON.parse(await ok(["audit", "list", "--json", "--action", "key.revoked", "--target", "BILLING"]));
    expect(revoked.map((e: { outcome: string }) => e.outcome)).toEqual(["failed", "succeeded"]);
    expect(JSON.parse(await ok(["audit", "list", "--json", "--since", "2099-01-01"]))).toEqual([]);
    const refused = await run(["audit", "list", "--action", "keys"], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--action: "keys" is no action');
  });
});
