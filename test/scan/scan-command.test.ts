import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, runCli } from "../support/processes.ts";
import { BUNDLED_DATA_DIR } from "../support/test-app.ts";

// These tests start real processes that load the bundled data; a loaded machine needs more than the 5 s default.
setDefaultTimeout(30_000);

const dir = mkdtempSync(join(tmpdir(), "riskcheck-scan-"));
const users = join(dir, "users.csv");
writeFileSync(users, "\uFEFFid,email,signup_ip\n1,jane@gmail.com,8.8.8.8\n2,bob@mailinator.com,1.1.1.1\n3,\"broken\"x,2.2.2.2\n4,carol@example.org,\n");
const DATA = ["--data-dir", BUNDLED_DATA_DIR];

describe("riskcheck scan", () => {
  test("--help names every option", () => {
    const { code, stdout } = runCli(["scan", "--help"]);
    expect(code).toBe(0);
    for (const option of ["--out FILE", "--format csv|jsonl", "--email-column NAME", "--ip-column NAME", "--explain", "--only-risky", "--data-dir DIR", "FILE"]) expect(stdout).toContain(option);
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
  });

  test("standard input to standard output as JSON Lines; the summary goes to standard error", async () => {
    const proc = Bun.spawn([process.execPath, CLI, "scan", "-", "--format", "jsonl", "--only-risky", ...DATA], { stdin: new TextEncoder().encode("a@mailinator.com\n8.8.8.8\nb@gmail.com\n"), stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(0);
    expect(stdout.trimEnd().split("\n").map((l) => JSON.parse(l).input)).toEqual(["a@mailinator.com"]);
    expect(stderr).toMatch(/^rows\s+3$/m);
    expect(stderr).toMatch(/^rows written\s+1$/m);
  });

  test.each([
    [["--format", "xml"], "--format is csv or jsonl"],
    [["--email-column", "contact"], "--email-column contact: no such column"],
    [["--bogus"], "Unknown option '--bogus'"],
  ])("usage error %p exits 2", (args, message) => {
    const { code, stderr } = runCli(["scan", users, ...args, ...DATA]);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stderr).toContain("riskcheck scan --help");
  });

  test("a CSV without an email or IP column exits 2", () => {
    const file = join(dir, "names.csv");
    writeFileSync(file, "name,city\na,b\n");
    const { code, stderr } = runCli(["scan", file, ...DATA]);
    expect(code).toBe(2);
    expect(stderr).toContain("no email or IP column");
  });

  test("I/O errors exit 1: a missing input, an output that cannot be written, a data directory without data", () => {
    expect(runCli(["scan", join(dir, "missing.csv"), ...DATA])).toMatchObject({ code: 1, stderr: expect.stringContaining("no such file") });
    expect(runCli(["scan", users, "--out", join(dir, "no", "such", "dir", "x.csv"), ...DATA]).code).toBe(1);
    expect(runCli(["scan", users, "--data-dir", join(dir, "empty")]).code).toBe(1);
  });
});
