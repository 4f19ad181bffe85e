import { readFileSync } from "node:fs";

/** A process that started this one, as /proc tells it: its start time tells it from a later process given the same pid. */
export interface Launcher {
  readonly pid: number;
  readonly started: string;
  readonly command: string;
}

/** A package runner (`bun run`, `npm run`, `npm exec`/`npx`, pnpm, yarn) or the `sh -c` one puts between itself and the script. */
const LAUNCHER =
  /^(?:\S*\/)?(?:(?:bun|bun\.exe|npm|pnpm|yarn) (?:run|exec|start)\b|npx |(?:sh|bash|dash) -c )|^(?:\S*\/)?node \S*(?:npm|npx)-cli\.js /;

/** Fields 4 (ppid) and 22 (start time) of /proc/PID/stat; null once the process is gone. */
function processStat(pid: number): { ppid: number; started: string } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name in parentheses may hold spaces: count from the last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(fields[1]), started: fields[19]! };
  } catch {
    return null;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "";
  }
}

/**
 * The package runners this process was started through, nearest first (`bun run start`, the
 * `sh -c` between, `npm exec` for `npx bun run start`): only when a package.json script
 * started it (npm_lifecycle_event is set), and only where /proc tells (Linux); else none.
 * A runner that dies of SIGTERM does not pass it on: the server would run on without it.
 */
export function packageScriptLaunchers(env: Record<string, string | undefined>): Launcher[] {
  if (!env.npm_lifecycle_event) return [];
  const launchers: Launcher[] = [];
  for (let pid = process.ppid; pid > 1; ) {
    const stat = processStat(pid);
    const command = commandLine(pid);
    if (stat === null || !LAUNCHER.test(command)) break;
    launchers.push({ pid, started: stat.started, command });
    pid = stat.ppid;
  }
  return launchers;
}

/** Calls `onGone` once, with the first of `launchers` found gone, checking every `everyMs`. */
export function watchLaunchers(
  launchers: readonly Launcher[],
  onGone: (launcher: Launcher) => void,
  everyMs = 1_000,
): void {
  if (launchers.length === 0) return;
  const timer = setInterval(() => {
    const gone = launchers.find((l) => processStat(l.pid)?.started !== l.started);
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(gone);
  }, everyMs);
  timer.unref();
}
