import { expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeDataDir, runCliAsync } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// These tests start real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(60_000));

const LOCK_MODULE = join(import.meta.dir, "../../src/datasets/update-lock.ts");

/** A process that takes the data directory's update lock and holds it until killed. */
async function holdLock(dir: string) {
  const script = `const { UpdateLock } = await import(${JSON.stringify(LOCK_MODULE)}); const lock = UpdateLock.take(${JSON.stringify(join(dir, "datasets"))}); console.log("held"); setInterval(() => lock, 1000);`;
  const proc = Bun.spawn([process.execPath, "-e", script], { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value)).toContain("held");
  return proc;
}

test("a lock file naming a live process that holds no lock (a reused pid after a reboot) does not block updates", async () => {
  const dir = makeDataDir();
  // What an older riskcheck, or a crash, leaves: a lock naming pid 1, which always runs.
  writeFileSync(join(dir, "datasets", ".update.lock"), "1");
  writeFileSync(join(dir, "datasets", ".update-lock.owner"), "1");
  const result = await runCliAsync(["update", "--data-dir", dir]);
  expect(result.stderr).not.toContain("another update");
  expect(result.code).toBe(0);
});

test("an update holding the lock refuses the next; killed with SIGKILL, it leaves nothing to take over", async () => {
  const dir = makeDataDir();
  const holder = await holdLock(dir);
  try {
    const refused = await runCliAsync(["update", "--data-dir", dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`another update (process ${holder.pid}) is running`);
    holder.kill("SIGKILL");
    await holder.exited;
    const after = await runCliAsync(["update", "--data-dir", dir]);
    expect(after.stderr).toBe("");
    expect(after.code).toBe(0);
  } finally {
    holder.kill("SIGKILL");
    await holder.exited;
  }
});
