import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { eventually, stopProcess } from "../support/deadline.ts";
import { SLOWNESS, scaled } from "../support/slowness.ts";

// Each test runs `bun test` itself, which starts PostgreSQL or waits for one.
setDefaultTimeout(scaled(90_000));

const ROOT = resolve(import.meta.dir, "../..");
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** `bun test FILE` in a temp folder of its own, so that what the run leaves behind can be seen; its deadlines scaled as this file's. */
function runTests(file: string, env: Record<string, string> = {}, prepare: (temp: string) => void = () => {}) {
  const temp = mkdtempSync(join(tmpdir(), "riskcheck-run-"));
  folders.push(temp);
  // As root, the test PostgreSQL server runs as the user postgres, who must reach its folder.
  chmodSync(temp, 0o755);
  prepare(temp);
  const proc = Bun.spawn([process.execPath, "test", file], {
    cwd: ROOT,
    env: { ...process.env, TMPDIR: temp, RISKCHECK_TEST_SLOWNESS: String(SLOWNESS), ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: scaled(80_000),
    killSignal: "SIGKILL",
  });
  let output = "";
  const decoder = new TextDecoder();
  const done = Promise.all(
    [proc.stdout, proc.stderr].map(async (stream) => {
      for await (const chunk of stream) output += decoder.decode(chunk);
    }),
  );
  return { proc, temp, output: () => output, done };
}

describe("a test run is bounded", () => {
  // Each test runs `bun test` in a temp folder of its own, and mostly waits on it: they run together.
  test.concurrent("a stalled database server (accepts, never answers) fails the PostgreSQL test file within seconds instead of hanging", async () => {
    const stalled = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const started = performance.now();
      const run = runTests("test/postgres/quota-leases.test.ts", {
        RISKCHECK_TEST_DATABASE_URL: `postgres://riskcheck:x@127.0.0.1:${stalled.port}/postgres`,
      });
      const code = await run.proc.exited;
      await run.done;
      const seconds = (performance.now() - started) / 1000;
      expect(code).not.toBe(0);
      expect(run.output()).toContain(`on the test PostgreSQL server took longer than ${scaled(10_000) / 1000} s`);
      expect(run.output()).toMatch(/\b0 pass\b/);
      expect(seconds).toBeLessThan(scaled(40_000) / 1000);
      expect(readdirSync(run.temp)).toEqual([]);
    } finally {
      stalled.stop(true);
    }
  });

  test.concurrent("SIGTERM stops a run whose JavaScript thread is stuck within seconds, and its PostgreSQL server and temp files go too", async () => {
    const run = runTests("./test/harness/holds-postgres.fixture.ts");
    try {
      await eventually(
        "the run to hold its test database",
        60_000,
        () => run.output().includes("holding the test database") || run.proc.exitCode !== null,
        50,
      );
      expect(run.output()).toContain("holding the test database");
      const [folder] = readdirSync(run.temp);
      expect(readdirSync(join(run.temp, folder))).toContainEqual(expect.stringMatching(/^riskcheck-pg-/));
      const signalled = performance.now();
      run.proc.kill("SIGTERM");
      await run.proc.exited;
      expect(performance.now() - signalled).toBeLessThan(scaled(3_000));
      expect(run.proc.signalCode).toBe("SIGTERM");
      // The run's watcher stops the server and deletes the folder.
      await eventually("the run's temp files to be gone", 10_000, () => readdirSync(run.temp).length === 0, 50);
    } finally {
      if (run.proc.exitCode === null && run.proc.signalCode === null) await stopProcess(run.proc, "SIGKILL");
    }
  });

  test.concurrent("a run deletes the temp folder of an earlier run killed together with its watcher, and leaves other runs' alone", async () => {
    const ended = Bun.spawn(["true"]);
    await ended.exited;
    const [leftover, live] = [ended.pid, process.pid].map((pid) => `riskcheck-test-${pid}-abcdef`);
    const run = runTests("test/harness/readme-commands.test.ts", {}, (temp) => {
      for (const folder of [leftover, live])
        mkdirSync(join(temp, folder, "riskcheck-pg-x", "data"), { recursive: true });
    });
    expect(await run.proc.exited).toBe(0);
    await eventually("the leftover folder to be deleted", 5_000, () => !existsSync(join(run.temp, leftover)), 50);
    expect(readdirSync(run.temp)).toEqual([live]);
  });

  // Skipped where this process cannot mount a tmpfs (not root, or a container that refuses mounts).
  test.concurrent.skipIf(!canMountTmpfs())(
    "an ended run's folder goes even with a file system a test left mounted in it",
    async () => {
      const ended = Bun.spawn(["true"]);
      await ended.exited;
      const leftover = `riskcheck-test-${ended.pid}-abcdef`;
      let mountPoint = "";
      const run = runTests("test/harness/readme-commands.test.ts", {}, (temp) => {
        mountPoint = join(temp, leftover, "riskcheck-full-x");
        mkdirSync(mountPoint, { recursive: true });
        expect(Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mountPoint]).exitCode).toBe(0);
      });
      try {
        expect(await run.proc.exited).toBe(0);
        await eventually("the leftover folder to be deleted", 5_000, () => !existsSync(join(run.temp, leftover)), 50);
        expect(readFileSync("/proc/self/mounts", "utf8")).not.toContain(mountPoint);
      } finally {
        Bun.spawnSync(["umount", "-l", mountPoint]);
      }
    },
  );
});

function canMountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  const dir = mkdtempSync(join(tmpdir(), "riskcheck-mount-probe-"));
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]).exitCode === 0;
  if (mounted) Bun.spawnSync(["umount", dir]);
  rmdirSync(dir);
  return mounted;
}
