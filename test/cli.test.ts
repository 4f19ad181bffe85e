import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../package.json";
import { API_ERRORS } from "../src/http/errors.ts";
import { openSqliteStores } from "../src/stores/sqlite/stores.ts";
import { makeDataDir, runCli } from "./support/processes.ts";
import { scaled } from "./support/slowness.ts";

// These tests start real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

const ROOT = join(import.meta.dir, "..");

function tempDb(): string {
  return join(mkdtempSync(join(tmpdir(), "riskcheck-cli-")), "riskcheck.sqlite");
}

describe("usage errors exit 2 with one line naming the problem and a hint to --help", () => {
  test.each([
    [[], "riskcheck --help"],
    [["frobnicate"], "riskcheck --help"],
    [["keys"], "riskcheck keys --help"],
    [["keys", "rename"], "riskcheck keys --help"],
    [["keys", "rotate"], "riskcheck keys rotate --help"],
    [["keys", "rotate", "x", "--grace", "1y"], "riskcheck keys rotate --help"],
    [["keys", "rotate", "x", "--grace", "999999d"], "riskcheck keys rotate --help"],
    [["keys", "rotate", "x", "--grace", "31d"], "riskcheck keys rotate --help"],
    [["keys", "create", "--name", "x", "--expires", "999999d"], "riskcheck keys create --help"],
    [["keys", "update", "x"], "riskcheck keys update --help"],
    [["keys", "update", "x", "--expires", "2027-02-30"], "riskcheck keys update --help"],
    [["keys", "update", "x", "--allow-from", "10.0.0.0/33"], "riskcheck keys update --help"],
    [["keys", "update", "x", "--allow-from", ""], "riskcheck keys update --help"],
    [["keys", "create", "--name", "x", "--allow-from", "10.0.0.1/8"], "riskcheck keys create --help"],
    [["keys", "update", "x", "--permissions", "everything"], "riskcheck keys update --help"],
    [["keys", "create", "--name", "x", "--expires", "2020-01-01"], "riskcheck keys create --help"],
    [["keys", "usage", "x", "--days", "0"], "riskcheck keys usage --help"],
    [["keys", "create"], "riskcheck keys create --help"],
    [["keys", "create", "--name"], "riskcheck keys create --help"],
    [["keys", "create", "--name", "x", "--bogus"], "riskcheck keys create --help"],
    [["keys", "create", "--name", "x", "--rate-per-minute", "ten"], "riskcheck keys create --help"],
    [["keys", "create", "--name", "x", "--ip-quota-per-month", "-5"], "riskcheck keys create --help"],
    [["keys", "create", "--name", "x", "--rate-per-minute="], "riskcheck keys create --help"],
    [["keys", "create", "--name", "x", "--ip-quota-per-month="], "riskcheck keys create --help"],
    [["keys", "create", "--name", "x", "--rate-per-minute", "3000000000"], "riskcheck keys create --help"],
    [["keys", "create", "--name", "   "], "riskcheck keys create --help"],
    [["keys", "create", "--name", "invoice\u202egnp.exe"], "riskcheck keys create --help"],
    [["keys", "revoke"], "riskcheck keys revoke --help"],
    [["keys", "list", "extra"], "riskcheck keys list --help"],
    [["serve", "--port", "99999"], "riskcheck serve --help"],
    [["serve", "--port", "http"], "riskcheck serve --help"],
    [["update", "--max-shrink", "2"], "riskcheck update --help"],
    [["version", "--verbose"], "riskcheck version --help"],
    [["admin", "unlock", "not-an-address"], "riskcheck admin unlock --help"],
    [["update", "--keep-versions", "0"], "riskcheck update --help"],
    [["serve", "--update-every", "daily"], "riskcheck serve --help"],
    [["help", "frobnicate"], "riskcheck --help"],
    [["keys", "list", "--database-url", "mysql://riskcheck:pw@db/riskcheck"], "riskcheck keys list --help"],
    [
      ["keys", "list", "--database-url", "postgres://riskcheck:hunter2secret@db/riskcheck", "--db", "x.sqlite"],
      "riskcheck keys list --help",
    ],
    [["db", "migrate", "--from-sqlite", "x.sqlite"], "riskcheck db migrate --help"],
  ])("%j", (args, hint) => {
    const { code, stdout, stderr } = runCli(args, { RISKCHECK_DB: tempDb() }, ROOT);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    const lines = stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^riskcheck: \S.*\S$/);
    expect(lines[1]).toBe(`Run '${hint.replace(/^riskcheck/, "npx bun src/cli/main.ts")}' for usage.`);
    expect(stderr).not.toContain("hunter2secret");
  });

  test("the help a usage error points at answers when pasted, from another directory too", () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "riskcheck-elsewhere-"));
    const { stderr } = runCli(["keys", "create"], { RISKCHECK_DB: tempDb() }, elsewhere);
    const pointer = stderr.match(/^Run '(.+)' for usage\.$/m)?.[1];
    expect(pointer).toBe(`${process.execPath} ${join(ROOT, "src", "cli", "main.ts")} keys create --help`);
    const pasted = Bun.spawnSync(["sh", "-c", pointer!], { cwd: elsewhere, timeout: scaled(30_000) });
    expect(pasted.exitCode).toBe(0);
    expect(pasted.stdout.toString()).toStartWith("usage: riskcheck keys create");
  });

  test("a database that cannot be reached is a runtime failure naming it without its password", () => {
    const { code, stderr } = runCli(["keys", "list"], {
      RISKCHECK_DATABASE_URL: "postgres://riskcheck:hunter2secret@127.0.0.1:1/riskcheck",
    });
    expect(code).toBe(1);
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).toContain("postgres://riskcheck:***@127.0.0.1:1/riskcheck: cannot use the PostgreSQL database");
    expect(stderr).not.toContain("hunter2secret");
  });

  test("a value that starts with a dash names the option and how to give it", () => {
    const { code, stderr } = runCli(["serve", "--port", "-1"], { RISKCHECK_DB: tempDb() });
    expect(code).toBe(2);
    expect(stderr.split("\n")[0]).toBe(
      'riskcheck: --port needs a value; give one that starts with "-" as --port=VALUE',
    );
  });

  test("a replaced variable still works, with a warning on standard error naming the setting to use", () => {
    const { code, stdout, stderr } = runCli(["keys", "create", "--name", "x", "--json", "--data-dir", makeDataDir()], {
      RISKCHECK_LEVEL_WARNING_SUM: "4",
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).name).toBe("x");
    expect(stderr.split("\n")[0]).toBe(
      "riskcheck: warning: RISKCHECK_LEVEL_WARNING_SUM is replaced by RISKCHECK_LEVEL_SUMS, and still read for now: set RISKCHECK_LEVEL_SUMS=warning=4 instead",
    );
  });

  test("a bad environment value names the variable", () => {
    const { code, stderr } = runCli(["serve"], { RISKCHECK_RATE_PER_MINUTE: "lots" });
    expect(code).toBe(2);
    expect(stderr).toContain("RISKCHECK_RATE_PER_MINUTE");
  });
});

describe("help", () => {
  const overview = runCli(["--help"]);
  const commands = [...overview.stdout.matchAll(/^ {2}([a-z]+(?: [a-z-]+)?) {2,}\S/gm)].map((m) => m[1]);

  test("riskcheck --help lists every command and exits 0", () => {
    expect(overview.code).toBe(0);
    expect(commands).toEqual([
      "serve",
      "update",
      "scan",
      "keys create",
      "keys list",
      "keys revoke",
      "keys update",
      "keys rotate",
      "keys usage",
      "reports list",
      "reports export",
      "reports delete",
      "admin set-password",
      "admin unlock",
      "audit list",
      "audit export",
      "db migrate",
      "email allow",
      "email deny",
      "email list",
      "email remove",
      "ip allow",
      "ip deny",
      "ip list",
      "ip remove",
      "policy list",
      "policy add",
      "policy enforce",
      "policy shadow",
      "policy move",
      "policy remove",
      "policy export",
      "policy import",
      "version",
    ]);
    expect(runCli(["help"]).stdout).toBe(overview.stdout);
    expect(runCli(["-h"]).stdout).toBe(overview.stdout);
  });

  test.each(commands)("%s answers --help and help COMMAND alike: synopsis, options, example; exit 0", (command) => {
    const words = command.split(" ");
    const viaFlag = runCli([...words, "--help"]);
    expect(viaFlag.code).toBe(0);
    expect(viaFlag.stderr).toBe("");
    expect(runCli(["help", ...words]).stdout).toBe(viaFlag.stdout);
    expect(viaFlag.stdout).toStartWith(`usage: riskcheck ${command}`);
    expect(viaFlag.stdout).toContain("  -h, --help");
    expect(viaFlag.stdout).toMatch(new RegExp(`\nExamples?:\n  (.*\\| )?riskcheck ${command}`));
  });

  test("--help wins over the other arguments, even wrong ones", () => {
    const { code, stdout } = runCli(["keys", "create", "--bogus", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toStartWith("usage: riskcheck keys create --name NAME");
  });

  test("each flag's line names its environment variable and default", () => {
    const { stdout } = runCli(["serve", "--help"]);
    expect(stdout).toMatch(
      /^ {2}--port PORT +Port to listen on; 0 picks a free one \[env: RISKCHECK_PORT\] \[default: 8080\]$/m,
    );
    expect(stdout).toMatch(/^ {2}--data-dir DIR +.* \[env: RISKCHECK_DATA_DIR\] \[default: \.\/data\]$/m);
    expect(stdout).toMatch(/^ {2}RISKCHECK_METRICS_TOKEN +.*\[default: none\]$/m);
    expect(runCli(["update", "--help"]).stdout).toMatch(/^ {2}--max-shrink F +.* \[default: 0\.5\]$/m);
    expect(runCli(["keys", "create", "--help"]).stdout).toMatch(/^ {2}--name NAME +.* \[required\]$/m);
  });

  test("a group lists its subcommands", () => {
    const { code, stdout } = runCli(["keys", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("keys create");
    expect(stdout).toContain("keys revoke");
    expect(stdout).not.toMatch(/^ {2}(serve|update|admin)/m);
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
    expect(row).toMatchObject({
      name: "checkout",
      status: "active",
      last_used_at: null,
      usage: { today: { email: 0, ip: 0 } },
    });
  });

  test("create --json gives id, name, key and created_at, with per-key limits", () => {
    const env = { RISKCHECK_DB: tempDb() };
    const out = runCli(
      ["keys", "create", "--name", "batch", "--rate-per-minute", "30", "--ip-quota-per-month", "500", "--json"],
      env,
    );
    expect(out.code).toBe(0);
    const body = JSON.parse(out.stdout);
    expect(body).toMatchObject({
      name: "batch",
      key: expect.stringMatching(/^rk_/),
      rate_per_minute: 30,
      ip_quota_per_month: 500,
    });
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

  test("update changes settings and prints before and after; rotate prints the new secret; list and usage show them; a name in use is refused", () => {
    const env = { RISKCHECK_DB: tempDb() };
    // Within the ten years an expiry may lie ahead.
    const year = new Date().getUTCFullYear() + 2;
    const { id, key: first } = JSON.parse(runCli(["keys", "create", "--name", "shop", "--json"], env).stdout);
    const taken = runCli(["keys", "create", "--name", "shop"], env);
    expect([taken.code, taken.stderr.split("\n")[0]]).toEqual([
      2,
      `riskcheck: an active key is already named "shop" (${id}); choose another name, or revoke or rename that key first`,
    ]);
    const updated = runCli(
      [
        "keys",
        "update",
        "shop",
        "--ip-quota-per-month",
        "50",
        "--expires",
        `${year}-01-01`,
        "--allow-from",
        "10.0.0.0/8, 2001:db8::/32",
        "--json",
      ],
      env,
    );
    expect(updated.code).toBe(0);
    const { before, after } = JSON.parse(updated.stdout);
    expect(before).toMatchObject({ id, ip_quota_per_month: null, expires_at: null, allowed_networks: [] });
    expect(after).toMatchObject({
      id,
      ip_quota_per_month: 50,
      expires_at: `${year}-01-01T00:00:00.000Z`,
      allowed_networks: ["10.0.0.0/8", "2001:db8::/32"],
    });
    const text = runCli(["keys", "update", id, "--ip-quota-per-month", "default", "--name", "shop-eu"], env);
    expect(text.stdout).toBe(
      `Updated ${id} "shop-eu"; running servers apply it within 3 seconds:\n  name: shop → shop-eu\n  ip_quota_per_month: 50 → (none)\n`,
    );
    const rotated = runCli(["keys", "rotate", "shop-eu", "--grace", "2h"], env);
    expect(rotated.code).toBe(0);
    const secret = rotated.stdout.trimEnd().split("\n").at(-1)!;
    expect(secret).toMatch(/^rk_/);
    expect(secret).not.toBe(first);
    const [listed] = JSON.parse(runCli(["keys", "list", "--json"], env).stdout);
    expect(listed).toMatchObject({
      id,
      name: "shop-eu",
      prefix: secret.slice(0, 9),
      status: "active",
      last_used_ip: null,
    });
    expect(Date.parse(listed.rotation_ends_at) - Date.now()).toBeWithin(7_100_000, 7_200_001);
    expect(runCli(["keys", "list"], env).stdout).toMatch(
      new RegExp(
        `expires ${year}-01-01 00:00; rotating: old secret until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d; ` +
          "from 10\\.0\\.0\\.0/8,2001:db8::/32 only",
      ),
    );
    const usage = JSON.parse(runCli(["keys", "usage", id, "--days", "7", "--json"], env).stdout);
    expect(usage.days).toHaveLength(7);
    expect(usage.total).toEqual({
      answered: 0,
      rate_limited: 0,
      over_quota: 0,
      refused: 0,
      forbidden: 0,
      reports_accepted: 0,
    });
    expect(runCli(["keys", "usage", "nobody"], env).stderr).toStartWith(
      'riskcheck: no key has the id or name "nobody"',
    );
  });

  test("the command a 403 answer names, with its NAME filled in, makes a key with both permissions", () => {
    const named = API_ERRORS.forbidden.message.match(/\(riskcheck (keys create [^)]+)\)/)?.[1];
    expect(named).toBeDefined();
    const env = { RISKCHECK_DB: tempDb() };
    const out = runCli(named!.replace("NAME", "waf").split(" "), env);
    expect(out.stderr).not.toContain("Run ");
    expect(out.code).toBe(0);
    const [key] = JSON.parse(runCli(["keys", "list", "--json"], env).stdout);
    expect(key).toMatchObject({ name: "waf", permissions: ["check", "report"] });
  });
});

describe("commands lead the right way", () => {
  /** A directory with no data directory in it, as a user's home or another project would be. */
  const elsewhere = () => mkdtempSync(join(tmpdir(), "riskcheck-elsewhere-"));
  const withoutDataSettings = { RISKCHECK_DATA_DIR: "", RISKCHECK_DB: "", RISKCHECK_DATABASE_URL: "" };

  test("help --help and help COMMAND --help answer with exit 0", () => {
    const list = runCli(["help", "--help"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("keys create");
    expect(list.stdout).toBe(runCli(["--help"]).stdout);
    const one = runCli(["help", "keys", "create", "-h"]);
    expect(one.code).toBe(0);
    expect(one.stdout).toStartWith("usage: riskcheck keys create");
  });

  test.each([
    [["keys", "list"]],
    [["keys", "revoke", "my-app"]],
    [["admin", "unlock"]],
    [["email", "list"]],
    [["email", "remove", "example.com"]],
    [["reports", "list"]],
    [["reports", "export", "--since", "2026-01-01"]],
    [["reports", "delete", "--ip", "203.0.113.9"]],
  ])("%j in a directory without the server's database creates none and names the one it looked for", (args) => {
    const cwd = elsewhere();
    const { code, stdout, stderr } = runCli(args, withoutDataSettings, cwd);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      `riskcheck: no database at ${join(cwd, "data", "riskcheck.sqlite")} (from the default data directory ./data in ${cwd}); nothing was created. Give the --data-dir (or --db) that the server uses: its start-up line names them\n`,
    );
    expect(readdirSync(cwd)).toEqual([]);
  });

  test("keys create where there is no data directory refuses instead of making a database no server reads", () => {
    const cwd = elsewhere();
    const { code, stderr } = runCli(["keys", "create", "--name", "my-app"], withoutDataSettings, cwd);
    expect(code).toBe(1);
    expect(stderr).toStartWith(
      `riskcheck: ${join(cwd, "data")}: no such data directory (from the default data directory ./data in ${cwd}); nothing was created.`,
    );
    expect(readdirSync(cwd)).toEqual([]);
  });

  test("email allow where there is no data directory refuses too; in a data directory it makes the database and says so", () => {
    const cwd = elsewhere();
    const refused = runCli(["email", "allow", "example.com", "--reason", "ours"], withoutDataSettings, cwd);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toStartWith(
      `riskcheck: ${join(cwd, "data")}: no such data directory (from the default data directory ./data in ${cwd}); nothing was created.`,
    );
    expect(readdirSync(cwd)).toEqual([]);
    const dataDir = makeDataDir();
    const made = runCli(
      ["email", "allow", "example.com", "--reason", "ours", "--data-dir", dataDir],
      withoutDataSettings,
      elsewhere(),
    );
    expect(made.code).toBe(0);
    expect(made.stderr).toBe(
      `riskcheck: made the new database ${join(dataDir, "riskcheck.sqlite")}; a server reads it when started with the same --data-dir\n`,
    );
    expect(
      JSON.parse(
        runCli(["email", "list", "--json", "--data-dir", dataDir], withoutDataSettings, elsewhere()).stdout,
      ).map((l: { domain: string }) => l.domain),
    ).toEqual(["example.com"]);
  });

  test("an override line made without USER or LOGNAME names the user (by uid where Bun cannot tell the name), not as unknown", () => {
    const dataDir = makeDataDir();
    const made = runCli(
      ["email", "allow", "example.com", "--reason", "ours", "--data-dir", dataDir],
      { ...withoutDataSettings, USER: "", LOGNAME: "" },
      elsewhere(),
    );
    expect(made.code).toBe(0);
    const [line] = JSON.parse(
      runCli(["email", "list", "--json", "--data-dir", dataDir], withoutDataSettings, elsewhere()).stdout,
    );
    const passwdName = Bun.spawnSync(["id", "-un"]).stdout.toString().trim();
    expect([`uid ${process.getuid!()}`, passwdName]).toContain(line.author);
  });

  test("keys create in a data directory without a database makes it and says so", () => {
    const dataDir = makeDataDir();
    expect(runCli(["keys", "list", "--data-dir", dataDir], withoutDataSettings, elsewhere()).code).toBe(1);
    const created = runCli(
      ["keys", "create", "--name", "first", "--data-dir", dataDir],
      withoutDataSettings,
      elsewhere(),
    );
    expect(created.code).toBe(0);
    expect(created.stderr).toBe(
      `riskcheck: made the new database ${join(dataDir, "riskcheck.sqlite")}; a server reads it when started with the same --data-dir\n`,
    );
    const again = runCli(
      ["keys", "create", "--name", "second", "--data-dir", dataDir],
      withoutDataSettings,
      elsewhere(),
    );
    expect(again.stderr).toBe("");
    const other = runCli(
      ["keys", "create", "--name", "other", "--data-dir", dataDir, "--db", join(dataDir, "other.sqlite")],
      withoutDataSettings,
      elsewhere(),
    );
    expect(other.stderr).toContain("when started with the same --data-dir and --db");
    expect(
      JSON.parse(runCli(["keys", "list", "--json", "--data-dir", dataDir], withoutDataSettings, elsewhere()).stdout),
    ).toHaveLength(2);
  });

  test("the hint of an empty override list, its domain filled in, works from another directory", async () => {
    const dataDir = makeDataDir();
    await openSqliteStores(join(dataDir, "riskcheck.sqlite")).close();
    const listed = runCli(["email", "list", "--data-dir", dataDir], withoutDataSettings, elsewhere());
    const hint = listed.stdout.match(/^No override lines\. Add one with: (.+)$/m)?.[1];
    expect(hint).toStartWith(`${process.execPath} `);
    expect(hint).toEndWith(`email allow DOMAIN --reason "why" --data-dir ${dataDir}`);
    const pasted = Bun.spawnSync(["sh", "-c", hint!.replace("DOMAIN", "example-corp.com")], {
      cwd: elsewhere(),
      env: { ...process.env, ...withoutDataSettings },
      timeout: scaled(30_000),
    });
    expect(pasted.exitCode).toBe(0);
    const [line] = JSON.parse(
      runCli(["email", "list", "--json", "--data-dir", dataDir], withoutDataSettings, elsewhere()).stdout,
    );
    expect(line).toMatchObject({ domain: "example-corp.com", action: "allow", reason: "why" });
  });

  test("the hint of an empty key list is a command line that works as printed, from another directory", async () => {
    const dataDir = makeDataDir();
    await openSqliteStores(join(dataDir, "riskcheck.sqlite")).close();
    const listed = runCli(["keys", "list", "--data-dir", dataDir], withoutDataSettings, elsewhere());
    const hint = listed.stdout.match(/^No keys yet\. Create one with: (.+)$/m)?.[1];
    expect(hint).toEndWith(`keys create --name my-app --data-dir ${dataDir}`);
    expect(hint).toStartWith(`${process.execPath} `);
    const pasted = Bun.spawnSync(["sh", "-c", hint!], {
      cwd: elsewhere(),
      env: { ...process.env, ...withoutDataSettings },
      timeout: scaled(30_000),
    });
    expect(pasted.exitCode).toBe(0);
    const [key] = JSON.parse(
      runCli(["keys", "list", "--json", "--data-dir", dataDir], withoutDataSettings, elsewhere()).stdout,
    );
    expect(key.name).toBe("my-app");
  });
});

describe("email", () => {
  test("list aligns its columns by display width, wide characters in a name included", () => {
    const dataDir = makeDataDir();
    expect(
      runCli(["email", "allow", "example.com", "--reason", "ours", "--author", "田中", "--data-dir", dataDir]).code,
    ).toBe(0);
    expect(
      runCli([
        "email",
        "deny",
        "throwaway.example",
        "--reason",
        "sign-up wave",
        "--author",
        "ops",
        "--data-dir",
        dataDir,
      ]).code,
    ).toBe(0);
    const lines = runCli(["email", "list", "--data-dir", dataDir]).stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    const reasonColumn = lines.map((line) => Bun.stringWidth(line.slice(0, line.search(/ours|sign-up wave|REASON/))));
    expect(new Set(reasonColumn).size).toBe(1);
  });
  test("--until: a day that does not exist is refused; a day given is listed as given, the day included", () => {
    const dataDir = makeDataDir();
    for (const until of [
      "2027-02-30",
      "2027-13-01",
      "2027-02-29",
      "2027-01-31T24:00:00Z",
      "2027-01-31T12:60:00Z",
      "31/01/2027",
    ]) {
      const refused = runCli([
        "email",
        "allow",
        "example.com",
        "--reason",
        "ours",
        "--until",
        until,
        "--data-dir",
        dataDir,
      ]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`--until "${until}" is not a date`);
    }
    const added = runCli([
      "email",
      "allow",
      "example.com",
      "--reason",
      "ours",
      "--until",
      "2099-01-31",
      "--data-dir",
      dataDir,
    ]);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("until 2099-01-31 (");
    expect(
      runCli(["email", "allow", "leap.example", "--reason", "ours", "--until", "2096-02-29", "--data-dir", dataDir])
        .code,
    ).toBe(0);
    const listed = runCli(["email", "list", "--data-dir", dataDir]).stdout;
    expect(listed).toMatch(/^example\.com +allow +2099-01-31 /m);
    expect(listed).toMatch(/^leap\.example +allow +2096-02-29 /m);
    // Stored as the instant it ends: the midnight after the day.
    const [line] = JSON.parse(runCli(["email", "list", "--json", "--data-dir", dataDir]).stdout);
    expect(line.until).toBe("2099-02-01T00:00:00.000Z");
  });

  test("a line on a public suffix (co.uk) is refused unless --force", () => {
    const dataDir = makeDataDir();
    for (const suffix of ["co.uk", "CO.UK", "org.uk"]) {
      const refused = runCli(["email", "deny", suffix, "--reason", "spam wave", "--data-dir", dataDir]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("is a public suffix");
      expect(refused.stderr).toContain("--force");
    }
    expect(runCli(["email", "deny", "spam.co.uk", "--reason", "spam wave", "--data-dir", dataDir]).code).toBe(0);
    expect(
      runCli(["email", "deny", "co.uk", "--reason", "all of it, on purpose", "--force", "--data-dir", dataDir]).code,
    ).toBe(0);
    expect(
      JSON.parse(runCli(["email", "list", "--json", "--data-dir", dataDir]).stdout).map(
        (l: { domain: string }) => l.domain,
      ),
    ).toEqual(["co.uk", "spam.co.uk"]);
  });
});

describe("reports", () => {
  test("delete --key without --ip removes all of that key's reports; with neither it is a usage error", () => {
    const dataDir = makeDataDir();
    const env = { RISKCHECK_DB: join(dataDir, "riskcheck.sqlite") };
    const rogue = JSON.parse(
      runCli(["keys", "create", "--name", "rogue", "--permissions", "report", "--json"], env).stdout,
    );
    const honest = JSON.parse(
      runCli(["keys", "create", "--name", "honest", "--permissions", "report", "--json"], env).stdout,
    );
    const db = new Database(env.RISKCHECK_DB);
    try {
      const insert = db.query(
        "INSERT INTO reports (key_id, ip, category, comment, reported_at) VALUES (?, ?, 'attack', NULL, ?)",
      );
      for (const ip of ["81.2.69.142", "89.160.20.112", "2a02:cf40::1"]) insert.run(rogue.id, ip, Date.now());
      insert.run(honest.id, "81.2.69.142", Date.now());
    } finally {
      db.close();
    }
    const neither = runCli(["reports", "delete"], env);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain("--ip IP, --key NAME, or both");
    const deleted = runCli(["reports", "delete", "--key", "rogue"], env);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain("Deleted 3 report(s) by rogue");
    expect(
      JSON.parse(runCli(["reports", "list", "--json"], env).stdout).map((r: { key_name: string }) => r.key_name),
    ).toEqual(["honest"]);
    expect(runCli(["reports", "list", "--since", "2026-02-30"], env).code).toBe(2);
  });
});
