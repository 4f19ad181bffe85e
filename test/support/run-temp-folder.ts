import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeFolder, stopPostmastersIn } from "./run-leftovers.ts";

const PREFIX = "riskcheck-test-";

/**
 * One temp folder for the whole test run, made the run's TMPDIR (child processes inherit
 * it), so that everything the tests and the programs they start put in the temp folder is
 * in one place: removed when the run ends, by a watcher process when the run is killed,
 * and by the next run when even the watcher was.
 */
export function startRunTempFolder(): string {
  const parent = tmpdir();
  removeFoldersOfEndedRuns(parent);
  const folder = mkdtempSync(join(parent, `${PREFIX}${process.pid}-`));
  // The test PostgreSQL server runs as the user postgres when the tests run as root.
  chmodSync(folder, 0o755);
  process.env.TMPDIR = folder;
  const reaper = spawn(process.execPath, [join(import.meta.dir, "run-reaper.ts"), String(process.pid), folder], {
    detached: true,
    stdio: "ignore",
  });
  reaper.unref();
  return folder;
}

/** Folders of runs whose process is gone: their watcher was killed too (with SIGKILL to every process, say). */
function removeFoldersOfEndedRuns(parent: string): void {
  for (const name of readdirSync(parent)) {
    const pid = Number(name.slice(PREFIX.length).split("-")[0]);
    if (!name.startsWith(PREFIX) || !Number.isInteger(pid) || isAlive(pid)) continue;
    const folder = join(parent, name);
    // What another run left must never fail this one: said, and left for the next run to retry.
    void stopPostmastersIn(folder)
      .then(() => removeFolder(folder))
      .catch((err) => console.error(`test run: could not remove ${folder}, left by an ended run: ${err}`));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, someone else's.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
