import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../package.json";
import { runCli } from "./support/processes.ts";

// These tests start real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(30_000);

function tempDb(): string {
  return join(mkdtempSync(join(tmpdir(), "riskcheck-cli-")), "riskcheck.sqlite");
}

describe("usage errors exit 2 with a one-line message and the usage", () => {
  test.each([
    [[]],
    [["frobnicate"]],
    [["keys"]],
    [["keys", "rotate"]],
    [["keys", "create"]],
    [["keys", "create", "--name"]],
    [["keys", "create", "--name", "x", "--bogus"]],
    [["keys", "create", "--name", "x", "--rate-per-minute", "ten"]],
    [["keys", "create", "--name", "x", "--ip-quota-per-month", "-5"]],
    [["keys", "create", "--name", "   "]],
    [["keys", "create", "--name", "invoice\u202egnp.exe"]],
    [["keys", "revoke"]],
    [["keys", "list", "extra"]],
    [["serve", "--port", "99999"]],
    [["serve", "--port", "http"]],
    [["version", "--verbose"]],
  ])("%j", (args) => {
    const { code, stderr } = runCli(args, { RISKCHECK_DB: tempDb() });
    expect(code).toBe(2);
    expect(stderr.split("\n")[0]).toMatch(/^riskcheck: \S/);
    expect(stderr).toContain("usage:");
  });

  test("a bad environment value names the variable", () => {
    const { code, stderr } = runCli(["serve"], { RISKCHECK_RATE_PER_MINUTE: "lots" });
    expect(code).toBe(2);
    expect(stderr).toContain("RISKCHECK_RATE_PER_MINUTE");
  });
});

describe("version", () => {
  test("prints the package version", () => {
    expect(runCli(["version"])).toEqual({ code: 0, stdout: `riskcheck ${pkg.version}\n`, stderr: "" });
  });
});

describe("keys", () => {
  test("create prints the secret alone on the last line; list never shows it", () => {
    const env = { RISKCHECK_DB: tempDb() };
    const created = runCli(["keys", "create", "--name", "checkout"], env);
    expect(created.code).toBe(0);
    const lines = created.stdout.trimEnd().split("\n");
    const secret = lines.at(-1)!;
    expect(secret).toMatch(/^rk_[A-Za-z0-9_-]{43}$/);

    const list = runCli(["keys", "list"], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("checkout");
    expect(list.stdout).toContain(secret.slice(0, 9));
    expect(list.stdout).not.toContain(secret);

    const json = runCli(["keys", "list", "--json"], env);
    expect(json.stdout).not.toContain(secret);
    const [row] = JSON.parse(json.stdout);
    expect(row).toMatchObject({ name: "checkout", status: "active", last_used_at: null, usage: { today: { email: 0, ip: 0 } } });
  });

  test("create --json gives id, name, key and created_at, with per-key limits", () => {
    const env = { RISKCHECK_DB: tempDb() };
    const out = runCli(["keys", "create", "--name", "batch", "--rate-per-minute", "30", "--ip-quota-per-month", "500", "--json"], env);
    expect(out.code).toBe(0);
    const body = JSON.parse(out.stdout);
    expect(body).toMatchObject({ name: "batch", key: expect.stringMatching(/^rk_/), rate_per_minute: 30, ip_quota_per_month: 500 });
    expect(body.id).toMatch(/^key_/);
    expect(Date.parse(body.created_at)).not.toBeNaN();
    const [listed] = JSON.parse(runCli(["keys", "list", "--json"], env).stdout);
    expect(listed.usage).toMatchObject({ ip_quota_per_month: 500, ip_quota_left: 500 });
  });

  test("revoke by id or name; unknown ones fail with exit 1", () => {
    const env = { RISKCHECK_DB: tempDb() };
    const { id } = JSON.parse(runCli(["keys", "create", "--name", "one", "--json"], env).stdout);
    runCli(["keys", "create", "--name", "two"], env);
    expect(runCli(["keys", "revoke", id], env).code).toBe(0);
    expect(runCli(["keys", "revoke", "two"], env).code).toBe(0);
    const again = runCli(["keys", "revoke", "two"], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already revoked");
    expect(runCli(["keys", "revoke", "three"], env).code).toBe(1);
    const rows = JSON.parse(runCli(["keys", "list", "--json"], env).stdout);
    expect(rows.map((r: { status: string }) => r.status)).toEqual(["revoked", "revoked"]);
  });
});
