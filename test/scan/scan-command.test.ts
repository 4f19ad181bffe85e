import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { afterAll, beforeAll } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mixedEmails } from "../support/mixed-emails.ts";
import { CLI, type ServeProcess, makeDataDir, runCli, startServe } from "../support/processes.ts";
import { BUNDLED_DATA_DIR } from "../support/bundled-data.ts";
import { scaled } from "../support/slowness.ts";

// These tests start real processes that load the bundled data; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

const dir = mkdtempSync(join(tmpdir(), "riskcheck-scan-"));
const users = join(dir, "users.csv");
writeFileSync(
  users,
  '\uFEFFid,email,signup_ip\n1,jane@gmail.com,8.8.8.8\n2,bob@mailinator.com,1.1.1.1\n3,"broken"x,2.2.2.2\n4,carol@example.org,\n',
);
// A database that does not exist: no override line applies, and none is made.
const NO_DB = join(dir, "none.sqlite");
const DATA = ["--data-dir", BUNDLED_DATA_DIR, "--db", NO_DB];

describe("riskcheck scan", () => {
  test("--help names every option", () => {
    const { code, stdout } = runCli(["scan", "--help"]);
    expect(code).toBe(0);
    for (const option of [
      "--out FILE",
      "--format csv|jsonl",
      "--email-column NAME",
      "--ip-column NAME",
      "--explain",
      "--only-risky",
      "--data-dir DIR",
      "--db FILE",
      "--database-url URL",
      "FILE",
    ])
      expect(stdout).toContain(option);
  });

  test("a CSV file into --out: the rows in the file, the summary on standard output, exit 0", () => {
    const out = join(dir, "checked.csv");
    const { code, stdout, stderr } = runCli(["scan", users, "--out", out, ...DATA]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const lines = readFileSync(out, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[1]).toStartWith("2,1,jane@gmail.com,8.8.8.8,gmail.com,false,true,US,AS15169 Google LLC,");
    expect(lines[2]).toStartWith("3,2,bob@mailinator.com,1.1.1.1,mailinator.com,true,false,AU,");
    expect(lines[3]).toContain("unreadable_row");
    expect(stdout).toMatch(/^rows\s+4$/m);
    expect(stdout).toMatch(/^unreadable rows\s+1$/m);
    // example.org is a reserved name: no address there receives mail.
    expect(stdout).toMatch(/^ {2}disposable\s+2$/m);
    expect(stdout).toMatch(/^ {2}free provider\s+1$/m);
    expect(stdout).toMatch(/^ {2}informative\s+\d+$/m);
    expect(stdout).toContain(`email and IP overrides and local reports: none applied, no database at ${NO_DB}`);
    expect(existsSync(NO_DB)).toBe(false);
  });

  test("standard input to standard output as JSON Lines; the summary goes to standard error", async () => {
    const proc = Bun.spawn([process.execPath, CLI, "scan", "-", "--format", "jsonl", "--only-risky", ...DATA], {
      stdin: new TextEncoder().encode("a@mailinator.com\n8.8.8.8\nb@gmail.com\n"),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect(code).toBe(0);
    expect(
      stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).input),
    ).toEqual(["a@mailinator.com"]);
    expect(stderr).toMatch(/^rows\s+3$/m);
    expect(stderr).toMatch(/^rows written\s+1$/m);
  });

  test("RISKCHECK_EMAIL_EVIDENCE is the scan's evidence rule, as it is the server's", () => {
    const input = join(dir, "one.txt");
    writeFileSync(input, "bob@mailinator.com\n");
    for (const rule of ["strict", "any"]) {
      const { code, stdout } = runCli(["scan", input, "--format", "jsonl", "--explain", ...DATA], {
        RISKCHECK_EMAIL_EVIDENCE: rule,
      });
      expect(code).toBe(0);
      expect(JSON.parse(stdout).email.reasons.evidence_rule).toBe(rule);
    }
  });

  test.each([
    [["--format", "xml"], "--format is csv or jsonl"],
    [["--email-column", "contact"], "--email-column contact: no such column"],
    [["--bogus"], "Unknown option '--bogus'"],
  ])("usage error %p exits 2", (args, message) => {
    const { code, stderr } = runCli(["scan", users, ...args, ...DATA]);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stderr).toContain(" scan --help' for usage.");
  });

  test("a CSV without an email or IP column exits 2", () => {
    const file = join(dir, "names.csv");
    writeFileSync(file, "name,city\na,b\n");
    const { code, stderr } = runCli(["scan", file, ...DATA]);
    expect(code).toBe(2);
    expect(stderr).toContain("no email or IP column");
  });

  test("I/O errors exit 1: a missing input, an output that cannot be written, a data directory without data", () => {
    expect(runCli(["scan", join(dir, "missing.csv"), ...DATA])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("no such file"),
    });
    expect(runCli(["scan", users, "--out", join(dir, "no", "such", "dir", "x.csv"), ...DATA]).code).toBe(1);
    expect(runCli(["scan", users, "--data-dir", join(dir, "empty")]).code).toBe(1);
    // A database that cannot be read: answering without the operator's override lines and reports would contradict the server.
    const notADatabase = join(dir, "not-a-database.sqlite");
    writeFileSync(notADatabase, "not SQLite");
    expect(runCli(["scan", users, "--data-dir", BUNDLED_DATA_DIR, "--db", notADatabase])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("scan: cannot read the server's database: "),
    });
  });
});

describe("riskcheck scan with the server's override lines", () => {
  let server: ServeProcess;
  let env: Record<string, string>;
  let key: string;
  let reporters: string[];
  let data: string;

  beforeAll(async () => {
    data = makeDataDir();
    env = { RISKCHECK_DATA_DIR: data, RISKCHECK_DB: join(data, "riskcheck.sqlite") };
    for (const [action, domain] of [
      ["allow", "mailinator.com"],
      ["deny", "yahoo.com"],
    ]) {
      expect(runCli(["email", action, domain, "--reason", `scan test ${action}`, "--author", "ops"], env).code).toBe(0);
    }
    // An IP line too: the scan's answer for 8.8.8.8 below must be the server's, decided by it.
    expect(runCli(["ip", "deny", "8.8.8.0/24", "--reason", "scan test deny", "--author", "ops"], env).code).toBe(0);
    reporters = ["ids", "waf"].map(
      (name) =>
        JSON.parse(runCli(["keys", "create", "--name", name, "--permissions", "check,report", "--json"], env).stdout)
          .key as string,
    );
    server = await startServe([], { ...env, RISKCHECK_RATE_PER_MINUTE: "0" });
    key = runCli(["keys", "create", "--name", "scan"], env).stdout.trimEnd().split("\n").at(-1)!;
  });

  afterAll(async () => {
    if (server.proc.exitCode === null) await server.stop();
  });

  test("local reports count as the running server counts them: scan --explain answers each IP as its GET with explain", async () => {
    // Two keys report 81.2.69.142 (one for attack, one for attack and bot); 89.160.20.112 once; the rest were never reported.
    const report = async (secret: string, reports: object[]) => {
      const res = await fetch(`${server.url}/v1/reports`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ reports }),
      });
      expect(res.status).toBe(200);
    };
    await report(reporters[0]!, [
      { ip: "81.2.69.142", category: "attack" },
      { ip: "89.160.20.112", category: "probe" },
    ]);
    await report(reporters[1]!, [
      { ip: "81.2.69.142", category: "attack" },
      { ip: "81.2.69.142", category: "bot" },
    ]);
    const ips = ["81.2.69.142", "89.160.20.112", "8.8.8.8", "10.0.0.1", "2001:db8::1", "not-an-ip"];
    const input = join(data, "ips.txt");
    writeFileSync(input, `${ips.join("\n")}\n`);
    const { code, stdout, stderr } = runCli(["scan", input, "--format", "jsonl", "--explain"], env);
    expect(code).toBe(0);
    expect(stderr).toContain(`local reports: 2 reported addresses in the last 90d, from SQLite ${env.RISKCHECK_DB}`);
    const rows = stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    // Two keys, two counts: the second key's reports in two categories count once (in bot, its tie-broken latest).
    expect(rows.find((r) => r.ip?.ip === "81.2.69.142").ip.reputation).toMatchObject({ attack: 1, bot: 1, sum: 2 });
    expect(stderr).toContain(`IP overrides: 1 line in force, from SQLite ${env.RISKCHECK_DB}`);
    expect(rows.find((r) => r.ip?.ip === "8.8.8.8").ip.reputation).toMatchObject({
      risky: true,
      reputation: "bad",
      reasons: { override: { target: "8.8.8.0/24", author: "ops" } },
    });
    for (const [i, ip] of ips.entries()) {
      const res = await fetch(`${server.url}/v1/ip-reputation-check?ip=${encodeURIComponent(ip)}&explain=1`, {
        headers: { authorization: `Bearer ${key}` },
      });
      if (res.status === 200) expect(JSON.stringify(rows[i].ip)).toBe(await res.text());
      else expect(rows[i].ip).toMatchObject({ input: ip, error: ((await res.json()) as { error: string }).error });
    }
  });

  test("an override line is honoured: scan --explain answers each email as the running server's GET with explain", async () => {
    const emails = mixedEmails(300);
    const input = join(data, "emails.jsonl");
    writeFileSync(input, emails.map((email) => JSON.stringify({ email })).join("\n"));
    const { code, stdout, stderr } = runCli(["scan", input, "--explain"], env);
    expect(code).toBe(0);
    expect(stderr).toContain(`email overrides: 2 lines in force, from SQLite ${env.RISKCHECK_DB}`);
    const rows = stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(rows).toHaveLength(emails.length);
    const mailinator = rows.find((r) => r.email.domain === "mailinator.com");
    expect(mailinator.email).toMatchObject({
      is_disposable: false,
      reasons: { override: { action: "allow", reason: "scan test allow", author: "ops" } },
    });
    expect(rows.find((r) => r.email.domain === "yahoo.com").email).toMatchObject({
      is_disposable: true,
      reasons: { rule: "denylisted" },
    });
    const answers = await Promise.all(
      emails.map((email) =>
        fetch(`${server.url}/v1/check?email=${encodeURIComponent(email)}&explain=1`, {
          headers: { authorization: `Bearer ${key}` },
        }),
      ),
    );
    for (const [i, res] of answers.entries()) {
      if (res.status === 200) expect(JSON.stringify(rows[i].email)).toBe(await res.text());
      else {
        expect(res.status).toBe(400);
        expect(rows[i].email).toMatchObject({
          input: emails[i],
          error: ((await res.json()) as { error: string }).error,
        });
      }
    }
  });
});
