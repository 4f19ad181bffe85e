/**
 * `bun bench/reload.ts`: what a dataset version switch costs the answers of a running
 * server, and how fast a cold `serve` answers.
 *
 * - Quiet, then reload: IP checks (a new random address each, `distinct.lua`) from 16
 *   connections; first `--quiet` seconds undisturbed, then a `--window` of seconds during
 *   which `riskcheck update --rollback` is issued `--reload-at` seconds in. Only the
 *   server's own load of the version competes for the CPU: no download, no compile.
 *   p99 and max of both, and their ratio, from the same run.
 * - Peak RSS (VmHWM) of the server under load before the reload, and with it.
 * - Cold start: `serve` on a copy of the bundled data until `/healthz` answers, `--starts` times.
 * - With `--compare DIR` (another checkout, e.g. the main branch): the same for its code,
 *   and `ip-distinct` head to head, 64 connections, alternating `--rounds` rounds.
 * - With `--only cold`: the cold starts alone, the checkouts' starts alternating, and the
 *   median of their ratios. With `--evict` too, each start first has the page cache dropped for
 *   the files it reads (the data directory, the checkout's src/ and node_modules/, the Bun binary:
 *   posix_fadvise DONTNEED, file by file, so the other users of a shared machine keep theirs;
 *   pages another running process maps, the Bun binary's above all, stay cached).
 * - With `--only cold --binary FILE` (once or twice, e.g. the builds of two commits): the
 *   compiled binaries instead of checkouts, each copied alone into an empty folder and started
 *   there as a user deploys it, with nothing beside it. Its first start writes its data and is
 *   reported apart; `--evict` drops the page cache of the folder, binary and data alike.
 *
 * Each server reads its own copy of the bundled data, with a second version made by
 * `update --force` on the bundled packages, so `--rollback` has a version to return to.
 */
import { dlopen } from "bun:ffi";
import {
  chmodSync,
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ROOT, type WrkResult as LoadResult, memoryOf, requireWrk, resetPeakRss } from "./load.ts";

const { values } = parseArgs({
  options: {
    quiet: { type: "string", default: "8" },
    window: { type: "string", default: "20" },
    "reload-at": { type: "string", default: "3" },
    connections: { type: "string", default: "16" },
    starts: { type: "string", default: "3" },
    compare: { type: "string" },
    rounds: { type: "string", default: "4" },
    duration: { type: "string", default: "4" },
    only: { type: "string" },
    evict: { type: "boolean", default: false },
    binary: { type: "string", multiple: true },
  },
});
const QUIET = Number(values.quiet);
const WINDOW = Number(values.window);
const RELOAD_AT = Number(values["reload-at"]);
const CONNECTIONS = Number(values.connections);

// The cold starts alone need no load generator.
if (values.only !== "cold") requireWrk();

/** This script reads wrk alone, not the server's CPU time. */
type WrkResult = Omit<LoadResult, "server_cpu_us">;

interface Checkout {
  readonly name: string;
  readonly root: string;
  /** The CLI's entry, relative to root: src/cli/main.ts, or src/cli.ts in a checkout from before issue 29. */
  readonly cli: string;
}

function checkout(name: string, root: string): Checkout {
  return { name, root, cli: existsSync(join(root, "src/cli/main.ts")) ? "src/cli/main.ts" : "src/cli.ts" };
}

const work = mkdtempSync(join(tmpdir(), "riskcheck-reload-"));
const BUNDLED = join(ROOT, "data");

function wrkArgs(url: string, key: string, connections: number, seconds: number): string[] {
  return [
    "wrk",
    "-t1",
    `-c${connections}`,
    `-d${seconds}s`,
    "--latency",
    "-s",
    join(import.meta.dir, "distinct.lua"),
    url,
    "--",
    key,
  ];
}

function parseWrk(stdout: string, stderr: string): WrkResult {
  const line = stdout.split("\n").find((l) => l.startsWith("BENCH "));
  if (!line) throw new Error(`wrk failed: ${stderr}${stdout}`);
  return JSON.parse(line.slice(6));
}

async function wrk(url: string, key: string, connections: number, seconds: number): Promise<WrkResult> {
  const proc = Bun.spawn(wrkArgs(url, key, connections, seconds), { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return parseWrk(stdout, stderr);
}

function peakRssMb(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmHWM:\s+(\d+) kB/)![1]) / 1024;
}

/** User + system seconds of a process so far (/proc/PID/stat counts 1/100 s ticks). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

/** A data directory holding the bundled version (hard links) and a second one on top of it. */
function makeDataDir(checkout: Checkout): string {
  const dir = join(work, `data-${checkout.name}`);
  const version = readlinkSync(join(BUNDLED, "current")).replace(/^datasets\//, "");
  mkdirSync(join(dir, "datasets"), { recursive: true });
  cpSync(join(BUNDLED, "datasets", version), join(dir, "datasets", version), { recursive: true });
  symlinkSync(join("datasets", version), join(dir, "current"));
  cpSync(join(BUNDLED, "curated"), join(dir, "curated"), { recursive: true });
  // Each checkout's own sources file: an older one may not know a newer one's formats.
  cpSync(join(checkout.root, "data", "sources.json"), join(dir, "sources.json"));
  const bundled = (
    JSON.parse(readFileSync(join(dir, "sources.json"), "utf8")).sources as { name: string; url: string }[]
  )
    .filter((s) => s.url.startsWith("npm:"))
    .map((s) => s.name);
  const update = Bun.spawnSync(
    [process.execPath, checkout.cli, "update", "--data-dir", dir, "--force", "--only", bundled.join(",")],
    { cwd: checkout.root, env: { ...process.env } },
  );
  if (update.exitCode !== 0)
    throw new Error(
      `update --force failed for ${checkout.name}: ${update.stderr.toString()}${update.stdout.toString()}`,
    );
  return dir;
}

interface Serve {
  readonly proc: ReturnType<typeof Bun.spawn>;
  readonly url: string;
  readonly log: () => string;
  readonly readyMs: number;
}

const SERVE_ENV = {
  ...process.env,
  RISKCHECK_RATE_PER_MINUTE: "1000000000",
  RISKCHECK_RATE_BURST: "1000000000",
  RISKCHECK_IP_QUOTA_PER_MONTH: "1000000000000",
  RISKCHECK_UPDATE_EVERY: "off",
};

/** A checkout's `serve` started; ready when `/healthz` answers 200. */
function serve(checkout: Checkout, dataDir: string, db: string): Promise<Serve> {
  return serveProcess(
    [process.execPath, "--max-http-header-size=65536", checkout.cli, "serve", "--port", "0", "--data-dir", dataDir],
    checkout.root,
    { ...SERVE_ENV, RISKCHECK_DB: db },
  );
}

async function serveProcess(cmd: string[], cwd: string, env: Record<string, string | undefined>): Promise<Serve> {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { cwd, env, stdout: "pipe", stderr: "pipe" });
  let output = "";
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of proc.stderr) output += decoder.decode(chunk);
  })();
  void (async () => {
    for await (const chunk of proc.stdout) output += decoder.decode(chunk);
  })();
  for (;;) {
    const url = output.match(/listening on (http:\/\/\S+)/)?.[1];
    if (url) {
      const ok = await fetch(`${url}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return { proc, url, log: () => output, readyMs: performance.now() - started };
    }
    if (proc.exitCode !== null) throw new Error(`serve exited: ${output}`);
    await Bun.sleep(2);
  }
}

async function stop(server: Serve): Promise<void> {
  server.proc.kill("SIGTERM");
  const exited = await Promise.race([server.proc.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
  if (!exited) server.proc.kill("SIGKILL");
}

const POSIX_FADV_DONTNEED = 4;
const libc = values.evict
  ? dlopen("libc.so.6", { posix_fadvise: { args: ["i32", "i64", "i64", "i32"], returns: "i32" } })
  : null;

/** Drops the page cache of every file under the paths (see --evict). */
function evict(paths: readonly string[]): void {
  const drop = (path: string) => {
    const fd = openSync(path, "r");
    try {
      libc!.symbols.posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    } finally {
      closeSync(fd);
    }
  };
  for (const path of paths) {
    if (!statSync(path).isDirectory()) drop(path);
    else
      for (const entry of readdirSync(path, { recursive: true, withFileTypes: true }))
        if (entry.isFile()) drop(join(entry.parentPath, entry.name));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (us: number) => (us / 1000).toFixed(1);

interface ReloadResult {
  readonly quiet: WrkResult;
  readonly reload: WrkResult;
  readonly reloadedAfterMs: number | null;
  /** VmHWM after the quiet window (start, load, warm-up and steady load), and after the reload too. */
  readonly steadyPeakRssMb: number;
  readonly peakRssMb: number;
  /** RSS at the end of the quiet window, and the peak of the reload's window alone (VmHWM counted afresh). */
  readonly steadyRssMb: number;
  readonly reloadPeakRssMb: number;
  readonly coldStartsMs: number[];
  readonly load: string[];
}

async function measure(checkout: Checkout, dataDir: string): Promise<ReloadResult> {
  const db = join(work, `${checkout.name}.sqlite`);
  const cli = (args: string[]) =>
    Bun.spawnSync([process.execPath, checkout.cli, ...args], {
      cwd: checkout.root,
      env: { ...process.env, RISKCHECK_DB: db },
    });
  const key = cli(["keys", "create", "--name", "bench"]).stdout.toString().trim().split("\n").at(-1)!;
  const server = await serve(checkout, dataDir, db);
  const load = [loadAverage()];
  try {
    await wrk(server.url, key, CONNECTIONS, 2); // warm-up
    const quiet = await wrk(server.url, key, CONNECTIONS, QUIET);
    const steadyPeak = peakRssMb(server.proc.pid as number);
    const steadyRss = memoryOf(server.proc.pid as number).rss;
    resetPeakRss(server.proc.pid as number);
    load.push(loadAverage());
    const windowRun = wrk(server.url, key, CONNECTIONS, WINDOW);
    await Bun.sleep(RELOAD_AT * 1000);
    const before = server.log().length;
    const issued = performance.now();
    const rollback = cli(["update", "--rollback", "--data-dir", dataDir]);
    if (rollback.exitCode !== 0) throw new Error(`update --rollback failed: ${rollback.stderr.toString()}`);
    let reloadedAfterMs: number | null = null;
    while (performance.now() - issued < (WINDOW - RELOAD_AT) * 1000) {
      if (/datasets: loaded version/.test(server.log().slice(before))) {
        reloadedAfterMs = performance.now() - issued;
        break;
      }
      await Bun.sleep(5);
    }
    const reload = await windowRun;
    load.push(loadAverage());
    const reloadPeak = peakRssMb(server.proc.pid as number);
    const peak = Math.max(steadyPeak, reloadPeak);
    await stop(server);
    const coldStartsMs: number[] = [];
    for (let i = 0; i < Number(values.starts); i++) {
      const cold = await serve(checkout, dataDir, db);
      coldStartsMs.push(cold.readyMs);
      await stop(cold);
    }
    return {
      quiet,
      reload,
      reloadedAfterMs,
      steadyPeakRssMb: steadyPeak,
      peakRssMb: peak,
      steadyRssMb: steadyRss,
      reloadPeakRssMb: reloadPeak,
      coldStartsMs,
      load,
    };
  } finally {
    if (server.proc.exitCode === null) await stop(server);
  }
}

function report(name: string, r: ReloadResult): void {
  console.log(`\n== ${name}`);
  console.log(
    `quiet ${QUIET} s:                p99 ${ms(r.quiet.p99_us)} ms, max ${ms(r.quiet.max_us)} ms, ${Math.round(r.quiet.requests / QUIET)} req/s, non-2xx ${r.quiet.non2xx}`,
  );
  console.log(
    `${WINDOW} s around the reload:   p99 ${ms(r.reload.p99_us)} ms, max ${ms(r.reload.max_us)} ms, ${Math.round(r.reload.requests / WINDOW)} req/s, non-2xx ${r.reload.non2xx}`,
  );
  console.log(
    `reload / quiet p99:         ${(r.reload.p99_us / r.quiet.p99_us).toFixed(2)}; version loaded ${r.reloadedAfterMs === null ? "NOT within the window" : `${(r.reloadedAfterMs / 1000).toFixed(2)} s after the rollback`}`,
  );
  console.log(
    `peak RSS:                   ${r.steadyPeakRssMb.toFixed(0)} MB under load before the reload, ${r.peakRssMb.toFixed(0)} MB with it`,
  );
  console.log(
    `reload's peak / steady RSS: ${(r.reloadPeakRssMb / r.steadyRssMb).toFixed(2)} (${r.reloadPeakRssMb.toFixed(0)} MB in the window around the reload, ${r.steadyRssMb.toFixed(0)} MB at the end of the quiet window)`,
  );
  console.log(
    `cold start to /healthz:     ${r.coldStartsMs.length === 0 ? "not measured (--starts 0)" : `median ${median(r.coldStartsMs).toFixed(0)} ms (${r.coldStartsMs.map((x) => x.toFixed(0)).join(", ")})`}`,
  );
  console.log(`load average:               ${r.load.join(" → ")}`);
}

if (values.binary) {
  if (values.only !== "cold" || values.compare || values.binary.length > 2) {
    console.error("bench: --binary FILE (once or twice) goes with --only cold, without --compare");
    process.exit(2);
  }
  await coldStartsOfBinaries(values.binary.map((file) => resolve(file)));
  rmSync(work, { recursive: true, force: true });
  process.exit(0);
}

/** The binaries' starts alternating, each in its own folder; see `--binary`. */
async function coldStartsOfBinaries(files: readonly string[]): Promise<void> {
  const folders = files.map((file, i) => {
    const folder = join(work, `binary-${i + 1}`);
    mkdirSync(folder);
    copyFileSync(file, join(folder, "riskcheck"));
    chmodSync(join(folder, "riskcheck"), 0o755);
    return folder;
  });
  // Nothing beside it: its data and database where it puts them itself, not where this shell points.
  const env: Record<string, string | undefined> = {
    ...SERVE_ENV,
    RISKCHECK_DATA_DIR: undefined,
    RISKCHECK_DB: undefined,
  };
  const start = (folder: string) => serveProcess([join(folder, "riskcheck"), "serve", "--port", "0"], folder, env);
  const firsts: number[] = [];
  const firstPeaks: number[] = [];
  for (const folder of folders) {
    const first = await start(folder);
    firsts.push(first.readyMs);
    firstPeaks.push(peakRssMb(first.proc.pid as number));
    await stop(first);
  }
  const starts: number[][] = files.map(() => []);
  for (let i = 0; i < Number(values.starts); i++) {
    for (const [b, folder] of folders.entries()) {
      if (values.evict) evict([folder]);
      const started = await start(folder);
      starts[b].push(started.readyMs);
      await stop(started);
    }
  }
  for (const [b, file] of files.entries()) {
    console.log(
      `${file}: first start (writes its data) ${firsts[b].toFixed(0)} ms, peak RSS ${firstPeaks[b].toFixed(0)} MB; then ${values.evict ? "cold, page cache of its folder dropped," : "warm"} to /healthz: median ${median(starts[b]).toFixed(0)} ms (${starts[b].map((x) => x.toFixed(0)).join(", ")})`,
    );
  }
  if (files.length === 2)
    console.log(
      `median ratio first / second: ${median(starts[0].map((x, i) => x / starts[1][i])).toFixed(3)}; load average ${loadAverage()}`,
    );
}

const checkouts: Checkout[] = [checkout("this", ROOT)];
if (values.compare) checkouts.push(checkout("compare", resolve(values.compare)));
if (values.only !== undefined && values.only !== "cold") {
  console.error(`bench: --only takes "cold" (cold starts alone), not "${values.only}"`);
  process.exit(2);
}
const dataDirs = checkouts.map(makeDataDir);

if (values.only === "cold") {
  // Cold starts alone, the checkouts alternating start by start, so the machine's load falls on both alike.
  const starts: number[][] = checkouts.map(() => []);
  const dbs = checkouts.map((c) => join(work, `${c.name}.sqlite`));
  for (let i = 0; i < Number(values.starts); i++) {
    for (const [c, checkout] of checkouts.entries()) {
      if (values.evict)
        evict([dataDirs[c], join(checkout.root, "src"), join(checkout.root, "node_modules"), process.execPath]);
      const cold = await serve(checkout, dataDirs[c], dbs[c]);
      starts[c].push(cold.readyMs);
      await stop(cold);
    }
  }
  for (const [c, checkout] of checkouts.entries()) {
    console.log(
      `${checkout.name} (${checkout.root}): ${values.evict ? "cold start, page cache dropped," : "start"} to /healthz: median ${median(starts[c]).toFixed(0)} ms (${starts[c].map((x) => x.toFixed(0)).join(", ")})`,
    );
  }
  if (values.compare)
    console.log(
      `median ratio this / compare: ${median(starts[0].map((x, i) => x / starts[1][i])).toFixed(3)}; load average ${loadAverage()}`,
    );
  rmSync(work, { recursive: true, force: true });
  process.exit(0);
}
const results: Record<string, ReloadResult> = {};
for (const [i, checkout] of checkouts.entries()) {
  results[checkout.name] = await measure(checkout, dataDirs[i]);
  report(`${checkout.name} (${checkout.root})`, results[checkout.name]);
}

/** One server's round: requests/s, and its CPU time per request (steadier when the machine is shared). */
interface Side {
  readonly rps: number;
  readonly cpuUs: number;
}
let distinct: { rounds: { this: Side; compare: Side }[]; ratio: number; cpuRatio: number } | null = null;
if (values.compare) {
  // Both servers up at once, rounds alternating, so the machine's load falls on both alike.
  const servers = await Promise.all(checkouts.map((c, i) => serve(c, dataDirs[i], join(work, `${c.name}.sqlite`))));
  const keys = checkouts.map(
    (c) =>
      Bun.spawnSync([process.execPath, c.cli, "keys", "create", "--name", "distinct"], {
        cwd: c.root,
        env: { ...process.env, RISKCHECK_DB: join(work, `${c.name}.sqlite`) },
      })
        .stdout.toString()
        .trim()
        .split("\n")
        .at(-1)!,
  );
  const rounds: { this: Side; compare: Side }[] = [];
  try {
    for (const [i, s] of servers.entries()) await wrk(s.url, keys[i], 64, 2);
    for (let round = 0; round < Number(values.rounds); round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      const got: Side[] = [];
      for (const i of order) {
        const pid = servers[i].proc.pid as number;
        const cpu = cpuSeconds(pid);
        const r = await wrk(servers[i].url, keys[i], 64, Number(values.duration));
        got[i] = { rps: r.requests / (r.duration_us / 1e6), cpuUs: ((cpuSeconds(pid) - cpu) * 1e6) / r.requests };
      }
      rounds.push({ this: got[0], compare: got[1] });
    }
  } finally {
    await Promise.all(servers.map(stop));
  }
  distinct = {
    rounds,
    ratio: median(rounds.map((r) => r.this.rps / r.compare.rps)),
    cpuRatio: median(rounds.map((r) => r.this.cpuUs / r.compare.cpuUs)),
  };
  console.log(`\n== ip-distinct, 64 connections, ${rounds.length} alternating rounds of ${values.duration} s`);
  for (const r of rounds)
    console.log(
      `this ${Math.round(r.this.rps)} req/s ${r.this.cpuUs.toFixed(1)} µs CPU/req, compare ${Math.round(r.compare.rps)} req/s ${r.compare.cpuUs.toFixed(1)} µs CPU/req`,
    );
  console.log(
    `median ratio this / compare: ${distinct.ratio.toFixed(3)} req/s, ${distinct.cpuRatio.toFixed(3)} CPU per request; load average ${loadAverage()}`,
  );
}

const commit =
  Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout.toString().trim() || "unknown";
const out = join(import.meta.dir, "results", `${new Date().toISOString().replace(/[:.]/g, "-")}-reload-${commit}.json`);
await Bun.write(
  out,
  JSON.stringify(
    {
      commit,
      quietSeconds: QUIET,
      windowSeconds: WINDOW,
      reloadAt: RELOAD_AT,
      connections: CONNECTIONS,
      results,
      distinct,
    },
    null,
    2,
  ),
);
console.log(`\nsaved ${out}`);
// The data directories: two copies of the bundled version each, ~330 MB a run.
rmSync(work, { recursive: true, force: true });
