/** What the HTTP benchmarks share: wrk runs, the servers' processes, medians. */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "..");

export interface WrkResult {
  requests: number;
  duration_us: number;
  non2xx: number;
  errors: number;
  p50_us: number;
  p99_us: number;
  max_us: number;
  /** The server's CPU time (all its threads) per request: steadier than requests/s on a shared machine. */
  server_cpu_us: number;
  /** The CPU time of the server's main thread (its JavaScript and HTTP, not the JIT's or GC's helpers) per request, to the ns. */
  serving_cpu_us: number;
}

export interface Server {
  readonly url: string;
  readonly proc: { readonly pid: number };
}

export interface LoadSettings {
  readonly durationSeconds: number;
  readonly connections: number;
}

/** Stands for the load of a new random address every request (`distinct.lua`) where a paths file is expected. */
export const DISTINCT = "distinct";

export function requireWrk(): void {
  if (!Bun.which("wrk")) {
    console.error("bench: wrk is missing; install it with: apt-get install wrk");
    process.exit(1);
  }
}

/** Load from a file of paths (`pool.lua`), or `DISTINCT` for a new random address every request (`distinct.lua`). */
export function wrk(
  server: Server,
  pathsFile: string,
  key: string,
  { durationSeconds, connections }: LoadSettings,
): WrkResult {
  const cpuBefore = cpuSeconds(server.proc.pid);
  const servingBefore = servingNs(server.proc.pid);
  const script =
    pathsFile === DISTINCT
      ? ["-s", join(import.meta.dir, "distinct.lua"), server.url, "--", key]
      : ["-s", join(import.meta.dir, "pool.lua"), server.url, "--", pathsFile, key];
  const run = Bun.spawnSync(["wrk", "-t1", `-c${connections}`, `-d${durationSeconds}s`, "--latency", ...script], {
    timeout: (durationSeconds + 30) * 1000,
  });
  const cpu = cpuSeconds(server.proc.pid) - cpuBefore;
  const serving = servingNs(server.proc.pid) - servingBefore;
  const line = run.stdout
    .toString()
    .split("\n")
    .find((l) => l.startsWith("BENCH "));
  if (!line) throw new Error(`wrk failed: ${run.stderr.toString()}${run.stdout.toString()}`);
  const result = JSON.parse(line.slice(6));
  const perRequest = (us: number) => (result.requests > 0 ? us / result.requests : 0);
  return { ...result, server_cpu_us: perRequest(cpu * 1e6), serving_cpu_us: perRequest(serving / 1e3) };
}

/** Nanoseconds on CPU of a process's main thread, which runs its JavaScript and Bun.serve (/proc/PID/task/PID/schedstat). */
function servingNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")[0]);
}

/** User + system seconds of a process so far; /proc/PID/stat counts clock ticks of 1/100 s (USER_HZ). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Starts a server process and waits for the line that says where it listens. */
export async function startProcess(cmd: string[], env: Record<string, string>, ready: RegExp) {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  let output = "";
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of proc.stderr) output += decoder.decode(chunk);
  })();
  for await (const chunk of proc.stdout) {
    output += decoder.decode(chunk);
    const match = output.match(ready);
    if (match) return { proc, url: match[1], startupMs: performance.now() - started, output: () => output };
  }
  throw new Error(`process did not start: ${cmd.join(" ")}\n${output}`);
}

export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(status.match(/VmHWM:\s+(\d+) kB/)![1]) / 1024;
}

export function writeLines(dir: string, name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const rps = (r: WrkResult) => r.requests / (r.duration_us / 1e6);

/** A process's memory, in MiB, from /proc/PID/smaps_rollup: resident, anonymous, proportional (shared pages split), shared. */
export interface Memory {
  readonly rss: number;
  readonly anonymous: number;
  readonly pss: number;
  readonly shared: number;
}

export function memoryOf(pid: number): Memory {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const mib = (field: string) => Number(rollup.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1] ?? 0) / 1024;
  return {
    rss: mib("Rss"),
    anonymous: mib("Anonymous"),
    pss: mib("Pss"),
    shared: mib("Shared_Clean") + mib("Shared_Dirty"),
  };
}

/** What a process maps of the files under `dir` (its dataset files), in MiB: mapped, and resident now. */
export function mappedDataOf(pid: number, dir: string): { mapped: number; resident: number } {
  let mapped = 0;
  let resident = 0;
  let inside = false;
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const mapping = line.match(/^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/);
    if (mapping) {
      inside = mapping[3].startsWith(dir);
      if (inside) mapped += (Number.parseInt(mapping[2], 16) - Number.parseInt(mapping[1], 16)) / 1048576;
    } else if (inside && line.startsWith("Rss:")) resident += Number(line.match(/(\d+) kB/)![1]) / 1024;
  }
  return { mapped, resident };
}

/** Starts counting a process's peak RSS (VmHWM) afresh (Linux: "5" to clear_refs; needs the right to write it). */
export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

/**
 * Starts a server process and times it until `path` answers 200 (the bare baseline's first
 * answer, `serve`'s /healthz): the wall time, and the CPU time (user + system, all its threads)
 * it had used by then, which a shared machine inflates less; stopped again with SIGTERM.
 */
export async function timeToFirstAnswer(
  cmd: string[],
  env: Record<string, string>,
  path: string,
): Promise<{ ms: number; cpuMs: number }> {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "ignore" });
  let output = "";
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of proc.stdout) output += decoder.decode(chunk);
  })();
  try {
    while (proc.exitCode === null && performance.now() - started < 60_000) {
      const url = output.match(/listening on (http:\/\/\S+)/)?.[1];
      if (
        url &&
        (await fetch(`${url}${path}`).then(
          (r) => r.status === 200,
          () => false,
        ))
      )
        return { ms: performance.now() - started, cpuMs: cpuSeconds(proc.pid) * 1000 };
      await Bun.sleep(2);
    }
    throw new Error(`${cmd.join(" ")} never answered ${path}:\n${output}`);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}
