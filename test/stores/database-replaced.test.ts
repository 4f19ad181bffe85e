import { Database } from "bun:sqlite";
import { expect, setDefaultTimeout, test } from "bun:test";
import { renameSync } from "node:fs";
import { join } from "node:path";
import { makeDataDir, runCli, startServe } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// These tests start real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(60_000));

test("a SQLite file replaced under a running server (a restore with mv) stops it loudly, exit 1, instead of serving stale keys", async () => {
  const dir = makeDataDir();
  const dbPath = join(dir, "r.sqlite");
  const env = { RISKCHECK_DATA_DIR: dir, RISKCHECK_DB: dbPath };
  expect(runCli(["keys", "create", "--name", "before"], env).code).toBe(0);
  const server = await startServe([], env);
  let code: number | null = null;
  try {
    const backup = new Database(dbPath);
    backup.exec(`VACUUM INTO '${dbPath}.restore'`);
    backup.close();
    renameSync(`${dbPath}.restore`, dbPath);
    const exited = await Promise.race([server.proc.exited, Bun.sleep(scaled(10_000)).then(() => null)]);
    code = exited;
  } finally {
    if (code === null) await server.stop("SIGKILL");
  }
  expect(server.output()).toContain(`${dbPath}: the database file was replaced while in use`);
  expect(code).toBe(1);
});
