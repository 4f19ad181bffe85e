import { Database } from "bun:sqlite";
import { expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeDataDir, runCli, startServe } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// These tests start real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(60_000));

/**
 * Makes `file` readable but not writable for this process; returns how to undo it, or null where
 * that cannot be done. Anyone else: its mode. Root ignores modes, so for root a read-only bind
 * mount of the file over itself, which a container without CAP_SYS_ADMIN refuses.
 */
function readOnly(file: string): (() => void) | null {
  if (process.getuid?.() !== 0) {
    chmodSync(file, 0o444);
    return () => chmodSync(file, 0o644);
  }
  if (Bun.spawnSync(["mount", "--bind", file, file]).exitCode !== 0) return null;
  if (Bun.spawnSync(["mount", "-o", "remount,bind,ro", file]).exitCode !== 0) {
    Bun.spawnSync(["umount", file]);
    return null;
  }
  return () => void Bun.spawnSync(["umount", file]);
}

const canMakeReadOnly = (() => {
  const dir = makeDataDir();
  const file = join(dir, "probe");
  writeFileSync(file, "");
  const undo = readOnly(file);
  undo?.();
  return undo !== null;
})();

// Skipped only as root where mounting is not allowed: there no file can be made read-only for root.
test.skipIf(!canMakeReadOnly)(
  "serve refuses a database it can read but not write, instead of losing every count",
  async () => {
    const dir = makeDataDir();
    const dbPath = join(dir, "r.sqlite");
    const env = { RISKCHECK_DATA_DIR: dir, RISKCHECK_DB: dbPath };
    expect(runCli(["keys", "create", "--name", "ro"], env).code).toBe(0);
    const undo = readOnly(dbPath)!;
    try {
      const started = startServe([], env);
      await expect(started).rejects.toThrow("the database is read-only");
      await started.then(
        (server) => server.stop(),
        () => {},
      );
    } finally {
      undo();
    }
  },
);

test("serve exits non-zero when its last usage counts cannot be saved", async () => {
  const dir = makeDataDir();
  const dbPath = join(dir, "r.sqlite");
  const env = { RISKCHECK_DATA_DIR: dir, RISKCHECK_DB: dbPath, RISKCHECK_USAGE_FLUSH_MS: "600000" };
  const key = runCli(["keys", "create", "--name", "lost"], env).stdout.trimEnd().split("\n").at(-1)!;
  const server = await startServe([], env);
  let code: number | null = null;
  try {
    expect(
      (await fetch(`${server.url}/v1/check?email=a@gmail.com`, { headers: { authorization: `Bearer ${key}` } })).status,
    ).toBe(200);
    // Every flush from now on fails, as on a database that went read-only or bad under the server.
    const other = new Database(dbPath);
    other.exec("DROP TABLE usage_daily");
    other.close();
    code = await server.stop();
  } finally {
    if (code === null) await server.stop("SIGKILL");
  }
  expect(server.output()).toContain("usage flush failed 5 times");
  expect(code).toBe(1);
});
