import { afterAll, setDefaultTimeout } from "bun:test";
import { readFileSync } from "node:fs";
import { stopTestPostgres } from "./postgres.ts";
import { descendantsOf, killProcesses, removeFolder } from "./run-leftovers.ts";
import { startRunTempFolder } from "./run-temp-folder.ts";
import { scaled } from "./slowness.ts";

// Preloaded (bunfig.toml): runs before the first test file and its hook after the last (with --parallel,
// before and after each file: a worker loads each file afresh).
const temp = startRunTempFolder();
// bun test's default is 5 s; here a file shares two cores with three others, and many load the bundled
// datasets (2–3 s of CPU alone) in a hook. A file that sets its own scales it too.
setDefaultTimeout(scaled(15_000));

afterAll(async () => {
  try {
    await stopTestPostgres();
  } finally {
    // A process a test left running (its teardown missed it) is named and killed: the run leaves none.
    const left = [...descendantsOf(process.pid)].filter(([pid]) => !isReaper(pid));
    if (left.length)
      console.error(
        `test run: killing ${left.length} process(es) that tests left running: ${left.map(([pid]) => commandOf(pid)).join("; ")}`,
      );
    killProcesses(new Map(left));
    removeFolder(temp);
  }
}, scaled(30_000));

function commandOf(pid: number): string {
  try {
    return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim().slice(0, 160)}`;
  } catch {
    return String(pid);
  }
}

/** The run's watcher, which exits by itself once the folder is gone. */
function isReaper(pid: number): boolean {
  return commandOf(pid).includes("run-reaper.ts");
}
