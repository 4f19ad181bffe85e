import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { openSqliteStores } from "../src/stores/sqlite/stores.ts";
import { makeDataDir, runCli } from "./support/processes.ts";
import { scaled } from "./support/slowness.ts";

// Real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

/** What a client or an operator may have typed: a terminal title, a screen clear, a carriage return, a NUL, a formula. */
const HOSTILE = "=cmd\x1b]0;owned\x07\x1b[2J\rfake line\0end";
const SHOWN = "=cmd\\x1b]0;owned\\x07\\x1b[2J\\rfake line\\x00end";
const RAW = /[\x00-\x08\x0b-\x1f\x7f]/;

let dataDir: string;
beforeAll(async () => {
  dataDir = makeDataDir();
  const file = join(dataDir, "riskcheck.sqlite");
  const stores = openSqliteStores(file);
  try {
    const { key } = await stores.keys.create({ name: "evil" });
    await stores.reports.add(key.id, [{ ip: "81.2.69.142", category: "attack", comment: HOSTILE }], Date.now(), {
      dedupSinceMs: 0,
      daySinceMs: 0,
      dailyAddresses: 1_000,
    });
    await stores.emailOverrides.put({
      domain: "partner.example",
      action: "allow",
      reason: HOSTILE,
      author: "ops\r\x1b[31m",
      created: new Date().toISOString(),
      until: null,
    });
  } finally {
    await stores.close();
  }
  // Key names with control characters are refused now, but a database may hold one from before the rule.
  const db = new Database(file);
  db.run("UPDATE api_keys SET name = ?", ["evil\x1b[2Jkey"]);
  db.close();
});

describe("text from outside is printed with its control characters escaped", () => {
  test("email list", () => {
    const { code, stdout } = runCli(["email", "list", "--data-dir", dataDir]);
    expect(code).toBe(0);
    expect(stdout).toContain(SHOWN);
    expect(stdout).toContain("ops\\r\\x1b[31m");
    expect(stdout).not.toMatch(RAW);
  });

  test("reports list", () => {
    const { code, stdout } = runCli(["reports", "list", "--data-dir", dataDir]);
    expect(code).toBe(0);
    expect(stdout).toContain(SHOWN);
    expect(stdout).not.toMatch(RAW);
  });

  test("reports export: escaped, and a formula starts with an apostrophe", () => {
    const { code, stdout } = runCli(["reports", "export", "--since", "2020-01-01", "--data-dir", dataDir]);
    expect(code).toBe(0);
    expect(stdout.trimEnd().split("\n")).toHaveLength(2);
    expect(stdout).toContain(`,'${SHOWN}\n`);
    expect(stdout).toContain(",evil\\x1b[2Jkey,");
    expect(stdout).not.toMatch(RAW);
  });

  test("keys list", () => {
    const { code, stdout } = runCli(["keys", "list", "--data-dir", dataDir]);
    expect(code).toBe(0);
    expect(stdout).toContain("evil\\x1b[2Jkey");
    expect(stdout).not.toMatch(RAW);
  });
});
