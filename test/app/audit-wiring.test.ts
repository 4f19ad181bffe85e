import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAuditTrail } from "../../src/app/audit-wiring.ts";
import { loadConfig } from "../../src/app/config.ts";
import { cliActor } from "../../src/audit/actors.ts";
import { openDatabase } from "../../src/stores/sqlite/database.ts";
import { inMemoryChangeSignal } from "../../src/stores/sqlite/change-signal.ts";
import { sqliteStores } from "../../src/stores/sqlite/stores.ts";

const stores = () => sqliteStores(openDatabase(":memory:"), inMemoryChangeSignal(), ":memory:");
/** A data directory of its own: the server notes its JSON lines' file there. */
const dataDir = () => mkdtempSync(join(tmpdir(), "rk-audit-data-"));
const configWith = (env: Record<string, string>) => loadConfig({}, { RISKCHECK_DATA_DIR: dataDir(), ...env });

test("RISKCHECK_AUDIT_LOG naming a file that cannot be written: the server refuses to start, a CLI command records in the database only", async () => {
  const config = configWith({ RISKCHECK_AUDIT_LOG: "/nonexistent-directory/audit.jsonl" });
  const db = stores();
  expect(() =>
    openAuditTrail(
      db,
      config,
      () => {},
      () => {},
      true,
    ),
  ).toThrow("RISKCHECK_AUDIT_LOG=/nonexistent-directory/audit.jsonl: cannot append to the file");
  const said: string[] = [];
  const trail = openAuditTrail(
    db,
    config,
    () => {},
    (line) => said.push(line),
    false,
  );
  expect(said).toEqual([expect.stringContaining("this command's events are recorded in the database only")]);
  await trail.as(cliActor()).record("sign_in.unlocked", "every address");
  expect(await db.audit.read({}, { order: "newest_first", limit: 5 })).toHaveLength(1);
});

test("a JSON line that cannot be written later is said; the event stays recorded and the act is not undone", async () => {
  const dir = mkdtempSync(join(tmpdir(), "rk-audit-lines-"));
  const file = join(dir, "audit.jsonl");
  const db = stores();
  const said: string[] = [];
  const trail = openAuditTrail(
    db,
    configWith({ RISKCHECK_AUDIT_LOG: file }),
    () => {},
    (l) => said.push(l),
    true,
  );
  const audit = trail.as(cliActor());
  await audit.record("sign_in.unlocked", "203.0.113.7");
  expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(1);
  rmSync(dir, { recursive: true }); // the shipper's directory gone: even root cannot append now
  expect(await audit.act("key.revoked", "k", async () => "done")).toBe("done");
  expect(said).toEqual([expect.stringContaining("could not write the audit event's JSON line")]);
  expect(await db.audit.read({}, { order: "newest_first", limit: 5 })).toHaveLength(2);
});

test("the JSON lines go where the setting says: stdout to the stream given, a file appended to", async () => {
  const dir = mkdtempSync(join(tmpdir(), "rk-audit-lines-"));
  const file = join(dir, "audit.jsonl");
  const written: string[] = [];
  const toStream = openAuditTrail(
    stores(),
    configWith({ RISKCHECK_AUDIT_LOG: "stdout" }),
    (t) => written.push(t),
    () => {},
    true,
  );
  const toFile = openAuditTrail(
    stores(),
    configWith({ RISKCHECK_AUDIT_LOG: file }),
    () => {},
    () => {},
    true,
  );
  const entry = await toStream.as(cliActor()).record("sign_out", "dashboard");
  await toFile.as(cliActor()).record("sign_out", "dashboard");
  await toFile.as(cliActor()).record("sign_in.unlocked", "every address");
  expect(written.map((line) => JSON.parse(line))).toEqual([{ log: "riskcheck.audit", ...entry }]);
  expect(
    readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line).action),
  ).toEqual(["sign_out", "sign_in.unlocked"]);
  expect(loadConfig({}, {}).audit).toEqual({ retentionMs: 400 * 86_400_000, lines: null });
  expect(() => loadConfig({}, { RISKCHECK_AUDIT_RETENTION: "12h" })).toThrow("shorter than a day");
  expect(() => loadConfig({}, { RISKCHECK_AUDIT_RETENTION: "forever" })).toThrow("is not a period");
});

test("the file is made readable by its owner only, and never reached through a symbolic link", async () => {
  const dir = mkdtempSync(join(tmpdir(), "rk-audit-lines-"));
  const file = join(dir, "audit.jsonl");
  const trail = openAuditTrail(
    stores(),
    configWith({ RISKCHECK_AUDIT_LOG: file }),
    () => {},
    () => {},
    true,
  );
  await trail.as(cliActor()).record("sign_out", "dashboard");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const elsewhere = join(dir, "elsewhere");
  writeFileSync(elsewhere, "");
  const link = join(dir, "link.jsonl");
  symlinkSync(elsewhere, link);
  expect(() =>
    openAuditTrail(
      stores(),
      configWith({ RISKCHECK_AUDIT_LOG: link }),
      () => {},
      () => {},
      true,
    ),
  ).toThrow("it is a symbolic link, which is never followed");
  expect(readFileSync(elsewhere, "utf8")).toBe("");
});

test("a CLI command on the server's data directory writes its events to the server's file, without the variable set", async () => {
  const dir = dataDir();
  const file = join(mkdtempSync(join(tmpdir(), "rk-audit-lines-")), "audit.jsonl");
  const db = stores();
  const server = openAuditTrail(
    db,
    loadConfig({}, { RISKCHECK_DATA_DIR: dir, RISKCHECK_AUDIT_LOG: file }),
    () => {},
    () => {},
    true,
  );
  await server.as(cliActor()).record("sign_out", "dashboard");
  const cli = openAuditTrail(
    db,
    loadConfig({}, { RISKCHECK_DATA_DIR: dir }),
    () => {},
    () => {},
    false,
  );
  await cli.as(cliActor()).record("sign_in.unlocked", "every address");
  const actions = () =>
    readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line).action);
  expect(actions()).toEqual(["sign_out", "sign_in.unlocked"]);
  // A server started without it takes the note back: the CLI writes nowhere but the database.
  openAuditTrail(
    db,
    loadConfig({}, { RISKCHECK_DATA_DIR: dir }),
    () => {},
    () => {},
    true,
  );
  await openAuditTrail(
    db,
    loadConfig({}, { RISKCHECK_DATA_DIR: dir }),
    () => {},
    () => {},
    false,
  )
    .as(cliActor())
    .record("sign_out", "dashboard");
  expect(actions()).toEqual(["sign_out", "sign_in.unlocked"]);
});

test("the log refuses deletes but retention's, in both databases' schemas (SQLite here)", async () => {
  const db = openDatabase(":memory:");
  const s = sqliteStores(db, inMemoryChangeSignal(), ":memory:");
  const trail = openAuditTrail(
    s,
    configWith({}),
    () => {},
    () => {},
    false,
  );
  await trail.as(cliActor()).record("sign_out", "dashboard");
  expect(() => db.exec("DELETE FROM audit_log")).toThrow(
    "the audit log is append-only: only its retention deletes events",
  );
  expect(await s.audit.prune(new Date(Date.now() + 1000).toISOString())).toBe(1);
});
