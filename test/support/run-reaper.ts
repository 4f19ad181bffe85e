/**
 * Started by the test preload in a session of its own, so that no signal meant for the run
 * reaches it: `bun run-reaper.ts PID FOLDER`. While the run (PID) lives, it notes the run's
 * child processes; once the run is gone and its temp folder is still there (it was killed, or
 * stopped by a signal before its teardown), it kills those processes and the PostgreSQL servers
 * whose data lies in the folder, then deletes the folder. A run that ends normally deletes the
 * folder itself, and this process then exits too.
 */
import { existsSync } from "node:fs";
import { type ProcessTable, descendantsOf, killProcesses, removeFolder, stopPostmastersIn } from "./run-leftovers.ts";

const POLL_MS = 500;
const [parentPid, folder] = [Number(process.argv[2]), process.argv[3]];
if (!Number.isInteger(parentPid) || !folder) throw new Error("usage: bun run-reaper.ts PID FOLDER");

let children = new Map<number, string>();
const table: ProcessTable = new Map();
while (existsSync(folder)) {
  if (!isAlive(parentPid)) {
    killProcesses(children);
    await stopPostmastersIn(folder);
    removeFolder(folder);
    break;
  }
  children = descendantsOf(parentPid, table);
  await Bun.sleep(POLL_MS);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
