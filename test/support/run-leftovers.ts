import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/** Each process's parent and start time, as descendantsOf read them: kept by a caller that asks again and again. */
export type ProcessTable = Map<number, { ppid: number; started: string }>;

/**
 * Every process below `pid` but this one (the run starts its watcher itself), each with its
 * start time (so that a number the system hands out again later is not mistaken for it).
 * Reads /proc; where there is none, the set is empty. With a `table` from an earlier call, only
 * the processes started since are read (a listing of /proc costs a twentieth of reading them all).
 */
export function descendantsOf(pid: number, table: ProcessTable = new Map()): Map<number, string> {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return new Map();
  }
  const listed = new Set<number>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const id = Number(entry);
    listed.add(id);
    if (table.has(id)) continue;
    const stat = readStat(id);
    if (stat) table.set(id, stat);
  }
  for (const id of table.keys()) if (!listed.has(id)) table.delete(id);
  const found = new Map<number, string>();
  const below = [pid];
  while (below.length > 0) {
    const parent = below.pop()!;
    for (const [child, { ppid, started }] of table) {
      if (ppid === parent && child !== process.pid && !found.has(child)) {
        found.set(child, started);
        below.push(child);
      }
    }
  }
  return found;
}

/** The parent and start time fields of /proc/PID/stat (after the parenthesised command, which may hold spaces). */
function readStat(pid: number): { ppid: number; started: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(fields[1]), started: fields[19] };
  } catch {
    return null;
  }
}

/** SIGKILL to each process still running with the start time it was seen with. */
export function killProcesses(processes: ReadonlyMap<number, string>): void {
  for (const [pid, started] of processes) {
    if (readStat(pid)?.started !== started) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
}

/**
 * Stops the PostgreSQL servers whose data directories lie one or two levels below `folder`
 * (their postmaster.pid names them): SIGQUIT, then SIGKILL after two seconds.
 */
export async function stopPostmastersIn(folder: string): Promise<void> {
  const pids = postmasterPids(folder);
  for (const pid of pids) signal(pid, "SIGQUIT");
  const until = Date.now() + 2_000;
  while (pids.some(isRunning) && Date.now() < until) await Bun.sleep(50);
  for (const pid of pids.filter(isRunning)) signal(pid, "SIGKILL");
}

function postmasterPids(folder: string): number[] {
  const pids: number[] = [];
  const look = (dir: string, depth: number) => {
    const file = join(dir, "postmaster.pid");
    if (existsSync(file)) {
      const pid = Number(readFileSync(file, "utf8").split("\n")[0]);
      if (Number.isInteger(pid) && pid > 0) pids.push(pid);
    }
    if (depth === 0) return;
    let entries: import("node:fs").Dirent[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory()) look(join(dir, entry.name), depth - 1);
  };
  look(folder, 2);
  return pids;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone meanwhile.
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Deletes a run's temp folder, first detaching (lazily: a file still open or mapped there keeps
 * it busy) the file systems a test mounted inside it and could not unmount, as a run killed
 * before its teardown leaves them.
 */
export function removeFolder(folder: string): void {
  for (const mountPoint of mountPointsUnder(folder)) Bun.spawnSync(["umount", "-l", mountPoint]);
  rmSync(folder, { recursive: true, force: true });
}

/** Deepest first; none where /proc is not there. */
function mountPointsUnder(folder: string): string[] {
  let mounts: string;
  try {
    mounts = readFileSync("/proc/self/mounts", "utf8");
  } catch {
    return [];
  }
  return mounts
    .split("\n")
    .map((line) =>
      (line.split(" ")[1] ?? "").replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(Number.parseInt(octal, 8))),
    )
    .filter((mountPoint) => mountPoint.startsWith(`${folder}/`))
    .sort((a, b) => b.length - a.length);
}
