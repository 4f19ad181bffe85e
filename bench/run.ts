/**
 * `bun run bench`: HTTP load on 127.0.0.1 against (a) a bare Bun.serve baseline and
 * (b) the real `riskcheck serve` on the bundled data, alternating A/B over several
 * rounds per scenario; prints one table and saves the results under bench/results/.
 * Needs `wrk` (Debian: apt-get install wrk). Every run stops by itself.
 *
 * Scenarios: ip-distinct (a new random public address every request), ip-random (a pool
 * of 10,000), email, private, unauthorized (401), floor (the IP check's HTTP work alone:
 * bench/floor-server.ts, with ip-distinct's requests), ceiling (the same with the address
 * parsed and a real answer's body for it: an IP answer whose lookups and JSON cost nothing),
 * limits (the price of rate limit and quota), assess, and postgres.
 *
 * `assess`: GET /v1/assess with an email and an address (the email and ip-random pools, paired)
 * against one email check plus one IP check (the three alternating in each round), and against
 * itself under a policy of 50 rules that never match, so every assessment walks them all
 * (bench/policy-rules.ts): a second server, its rules imported before it starts and warmed as long
 * as the first ran assessments, so no round meets the JIT compiling new rules; `--pairs` short runs on each,
 * alternating which goes first, compared pair by pair on the CPU per request of the serving
 * thread (and of the whole process), median and range.
 *
 *   bun run bench [--duration 5] [--rounds 3] [--pairs 12] [--connections 64] [--starts 5] [--binary FILE]
 *     [--only ip-distinct,ip-random,email,private,unauthorized,floor,ceiling,limits,assess,postgres,memory,
 *      memory-update,start]
 *
 * `postgres` runs the IP check on a second riskcheck whose keys, usage and quota are in
 * PostgreSQL (RISKCHECK_TEST_DATABASE_URL's server, or an embedded one started here),
 * alternating with the SQLite one.
 *
 * `memory`: the server's RSS and anonymous memory (/proc/PID/smaps_rollup) while it answers new
 * random addresses, with what it maps of its data directory, then two servers on that one data
 * directory at once (their PSS counts the pages they share once); `memory-update`: the same
 * after a default `riskcheck update` on the real snapshots (../shared/feeds served on
 * 127.0.0.1, as `bun run trial:update`). `start`: alternating starts of the bare baseline until
 * its first answer, and of `riskcheck serve` until /healthz answers 200, both as the product ships
 * (the compiled binary, `--binary FILE` or built here by `bun run build`, in a folder of its own
 * whose data directory its first start wrote) and from source (`bun src/cli/main.ts serve`).
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freshDatabaseUrl, stopTestPostgres } from "../test/support/postgres.ts";
import {
  DISTINCT,
  type Memory,
  ROOT,
  type Server,
  type WrkResult,
  mappedDataOf,
  median,
  memoryOf,
  peakRssMb,
  requireWrk,
  rps,
  startProcess,
  timeToFirstAnswer,
  writeLines,
  wrk as wrkWith,
} from "./load.ts";
import { benchRules } from "./policy-rules.ts";
import { makeAddressPool, makeEmailPool } from "./pools.ts";
import { FEEDS, freshDataDir, serveFeeds, trialSources, writeSources } from "./real-feeds.ts";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    pairs: { type: "string", default: "12" },
    connections: { type: "string", default: "64" },
    starts: { type: "string", default: "5" },
    binary: { type: "string" },
    only: { type: "string" },
  },
});
const DURATION = Number(values.duration);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);

requireWrk();
const wrk = (server: Server, pathsFile: string, key = "") =>
  wrkWith(server, pathsFile, key, { durationSeconds: DURATION, connections: CONNECTIONS });

const work = mkdtempSync(join(tmpdir(), "riskcheck-bench-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const addresses = makeAddressPool(10_000);
const emailPool = makeEmailPool(join(ROOT, "data"), 10_000);
const assessPaths = writeLines(
  work,
  "assess.txt",
  addresses.map(
    (a, i) => `/v1/assess?email=${encodeURIComponent(emailPool[i % emailPool.length])}&ip=${encodeURIComponent(a)}`,
  ),
);
const pools = {
  "ip-distinct": DISTINCT,
  floor: DISTINCT,
  ceiling: DISTINCT,
  "ip-random": writeLines(
    work,
    "ip.txt",
    addresses.map((a) => `/v1/ip-reputation-check?ip=${encodeURIComponent(a)}`),
  ),
  email: writeLines(
    work,
    "email.txt",
    emailPool.map((e) => `/v1/check?email=${encodeURIComponent(e)}`),
  ),
  assess: assessPaths,
  private: writeLines(
    work,
    "private.txt",
    Array.from(
      { length: 1000 },
      (_, i) => `/v1/ip-reputation-check?ip=10.${i % 256}.${(i * 7) % 256}.${(i * 13) % 256}`,
    ),
  ),
  unauthorized: writeLines(
    work,
    "unauthorized.txt",
    Array.from({ length: 100 }, () => "/v1/check?email=someone@gmail.com"),
  ),
};

// A fixed body as large as a typical IP answer.
const sampleBodySize = 600;
const baseline = await startProcess(
  [process.execPath, "bench/baseline-server.ts", String(sampleBodySize)],
  {},
  /listening on (http:\/\/\S+)/,
);

const dbPath = join(work, "bench.sqlite");
const serverEnv = {
  RISKCHECK_DB: dbPath,
  // No refresh child starting mid-run.
  RISKCHECK_UPDATE_EVERY: "off",
  RISKCHECK_RATE_PER_MINUTE: "1000000000",
  RISKCHECK_RATE_BURST: "1000000000",
  RISKCHECK_IP_QUOTA_PER_MONTH: "1000000000000",
};
const cli = [process.execPath, "src/cli/main.ts"];
const createKey = (env: Record<string, string>) =>
  Bun.spawnSync([...cli, "keys", "create", "--name", "bench"], { cwd: ROOT, env: { ...process.env, ...env } })
    .stdout.toString()
    .trim()
    .split("\n")
    .at(-1)!;
const key = createKey(serverEnv);
const riskcheck = await startProcess([...cli, "serve", "--port", "0"], serverEnv, /listening on (http:\/\/\S+)/);
// The same server without rate limit and quota, to price them (usage accounting stays on).
const unlimitedEnv = { ...serverEnv, RISKCHECK_RATE_PER_MINUTE: "0", RISKCHECK_IP_QUOTA_PER_MONTH: "0" };
const unlimited = await startProcess([...cli, "serve", "--port", "0"], unlimitedEnv, /listening on (http:\/\/\S+)/);

const selected = (name: string) => !values.only || values.only.split(",").includes(name);
// The floor: the same HTTP setup and admission answering a fixed body (bench/floor-server.ts).
const floor = selected("floor")
  ? await startProcess(
      [process.execPath, "bench/floor-server.ts", dbPath, String(sampleBodySize)],
      serverEnv,
      /listening on (http:\/\/\S+)/,
    )
  : null;
// The ceiling: the floor answering each address with 8.8.8.8's real answer (flag and all) for it.
const ceiling = selected("ceiling")
  ? await startProcess(
      [
        process.execPath,
        "bench/floor-server.ts",
        dbPath,
        String(sampleBodySize),
        writeLines(work, "answer.json", [
          await (
            await fetch(`${riskcheck.url}/v1/ip-reputation-check?ip=8.8.8.8`, {
              headers: { authorization: `Bearer ${key}` },
            })
          ).text(),
        ]),
      ],
      serverEnv,
      /listening on (http:\/\/\S+)/,
    )
  : null;

// Warm them (JIT, page cache) before measuring.
wrk(baseline, pools.email);
wrk(riskcheck, pools["ip-random"], key);
if (selected("assess")) wrk(riskcheck, pools.assess, key);
if (floor) wrk(floor, pools.floor, key);
if (ceiling) wrk(ceiling, pools.ceiling, key);

const scenarios: { name: keyof typeof pools; key: string; server: Server }[] = [
  { name: "ip-distinct" as const, key, server: riskcheck },
  { name: "ip-random" as const, key, server: riskcheck },
  { name: "email" as const, key, server: riskcheck },
  { name: "private" as const, key, server: riskcheck },
  { name: "unauthorized" as const, key: "", server: riskcheck },
  ...(floor ? [{ name: "floor" as const, key, server: floor }] : []),
  ...(ceiling ? [{ name: "ceiling" as const, key, server: ceiling }] : []),
].filter((s) => selected(s.name));

const results: Record<string, { baseline: WrkResult[]; riskcheck: WrkResult[] }> = {};
for (const s of scenarios) {
  results[s.name] = { baseline: [], riskcheck: [] };
  for (let round = 0; round < ROUNDS; round++) {
    results[s.name].baseline.push(wrk(baseline, pools[s.name]));
    results[s.name].riskcheck.push(wrk(s.server, pools[s.name], s.key));
  }
}

const limitsCost: { limited: WrkResult[]; unlimited: WrkResult[] } = { limited: [], unlimited: [] };
if (selected("limits")) {
  for (let round = 0; round < ROUNDS; round++) {
    limitsCost.limited.push(wrk(riskcheck, pools["ip-random"], key));
    limitsCost.unlimited.push(wrk(unlimited, pools["ip-random"], key));
  }
}

// An assessment against the two checks it is made of, on the same server: alternating in each round.
const assessCost: Record<"email" | "ip" | "assess", WrkResult[]> = { email: [], ip: [], assess: [] };
// And against itself under 50 rules, on a server of its own: the rules imported before it starts (a policy that
// changes is new code the JIT compiles again, once, over the next seconds), then warmed as the first was. Short
// runs in pairs, which one goes first alternating, each pair compared on its own: the machine's load moves in
// seconds, and a pair meets the same load on both sides.
const rulesCost: { none: WrkResult[]; rules: WrkResult[] } = { none: [], rules: [] };
if (selected("assess")) {
  for (let round = 0; round < ROUNDS; round++) {
    assessCost.email.push(wrk(riskcheck, pools.email, key));
    assessCost.ip.push(wrk(riskcheck, pools["ip-random"], key));
    assessCost.assess.push(wrk(riskcheck, pools.assess, key));
  }
  const rulesEnv = { ...serverEnv, RISKCHECK_DB: join(work, "rules.sqlite") };
  const rulesKey = createKey(rulesEnv);
  const imported = Bun.spawnSync(
    [...cli, "policy", "import", writeLines(work, "rules.json", [JSON.stringify(benchRules(50))])],
    { cwd: ROOT, env: { ...process.env, ...rulesEnv } },
  );
  if (imported.exitCode !== 0) throw new Error(`policy import failed: ${imported.stderr.toString()}`);
  const ruled = await startProcess([...cli, "serve", "--port", "0"], rulesEnv, /listening on (http:\/\/\S+)/);
  const policyOf = async (server: Server, bearer: string) =>
    (
      (await (
        await fetch(`${server.url}/v1/assess?email=someone@gmail.com`, {
          headers: { authorization: `Bearer ${bearer}` },
        })
      ).json()) as { policy: string }
    ).policy;
  if ((await policyOf(ruled, rulesKey)) === (await policyOf(riskcheck, key)))
    throw new Error("the second server does not serve the 50 rules");
  // Warmed as long as the first server ran assessments before the pairs, so that both have had as long to compile
  // (a policy's code is more of it, and at load the JIT's threads wait their turn).
  wrkWith(ruled, pools.assess, rulesKey, { durationSeconds: (ROUNDS + 1) * DURATION, connections: CONNECTIONS });
  const short = { durationSeconds: Math.max(1, Math.round(DURATION / 2)), connections: CONNECTIONS };
  for (let pair = 0; pair < Number(values.pairs); pair++) {
    const none = () => rulesCost.none.push(wrkWith(riskcheck, pools.assess, key, short));
    const rules = () => rulesCost.rules.push(wrkWith(ruled, pools.assess, rulesKey, short));
    if (pair % 2 === 0) {
      none();
      rules();
    } else {
      rules();
      none();
    }
  }
  ruled.proc.kill("SIGTERM");
  await ruled.proc.exited;
}

// The same IP check with keys, usage and the quota in PostgreSQL, against the SQLite server.
const onPostgres: { sqlite: WrkResult[]; postgres: WrkResult[] } = { sqlite: [], postgres: [] };
if (selected("postgres")) {
  const postgresEnv = {
    RISKCHECK_DATABASE_URL: await freshDatabaseUrl(),
    RISKCHECK_RATE_PER_MINUTE: serverEnv.RISKCHECK_RATE_PER_MINUTE,
    RISKCHECK_RATE_BURST: serverEnv.RISKCHECK_RATE_BURST,
    RISKCHECK_IP_QUOTA_PER_MONTH: serverEnv.RISKCHECK_IP_QUOTA_PER_MONTH,
  };
  const postgresKey = createKey(postgresEnv);
  const postgres = await startProcess([...cli, "serve", "--port", "0"], postgresEnv, /listening on (http:\/\/\S+)/);
  wrk(postgres, pools["ip-random"], postgresKey);
  for (let round = 0; round < ROUNDS; round++) {
    onPostgres.sqlite.push(wrk(riskcheck, pools["ip-random"], key));
    onPostgres.postgres.push(wrk(postgres, pools["ip-random"], postgresKey));
  }
  postgres.proc.kill("SIGTERM");
  await postgres.proc.exited;
  await stopTestPostgres();
}

/** A server's memory while it answers new random addresses, and what it maps of its data directory. */
interface ServingMemory extends Memory {
  readonly data: { mapped: number; resident: number };
}

/** The servers' memory sampled at 80 % of a run of new random addresses sent to each at once. */
async function memoryWhileServing(servers: readonly { server: Server; key: string }[], dataDir: string) {
  const seconds = Math.max(DURATION, 5);
  const runs = servers.map(({ server, key }) =>
    Bun.spawn(
      [
        "wrk",
        "-t1",
        `-c${Math.ceil(CONNECTIONS / servers.length)}`,
        `-d${seconds}s`,
        "-s",
        join(import.meta.dir, "distinct.lua"),
        server.url,
        "--",
        key,
      ],
      { stdout: "ignore", stderr: "ignore" },
    ),
  );
  await Bun.sleep(seconds * 800);
  const data = realpathSync(dataDir);
  const sampled: ServingMemory[] = servers.map(({ server }) => ({
    ...memoryOf(server.proc.pid),
    data: mappedDataOf(server.proc.pid, data),
  }));
  await Promise.all(runs.map((run) => run.exited));
  return sampled;
}

const memory: { bundled?: ServingMemory; two?: ServingMemory[]; afterUpdate?: ServingMemory | string } = {};
if (selected("memory")) {
  memory.bundled = (await memoryWhileServing([{ server: riskcheck, key }], join(ROOT, "data")))[0];
  // `unlimited` serves the same data directory: the mapped pages are the same page cache's.
  memory.two = await memoryWhileServing(
    [
      { server: riskcheck, key },
      { server: unlimited, key },
    ],
    join(ROOT, "data"),
  );
}
if (selected("memory-update")) memory.afterUpdate = await memoryAfterUpdate();

/** A server's memory on a fresh data directory after a default update on the real snapshots, or why there is none. */
async function memoryAfterUpdate(): Promise<ServingMemory | string> {
  if (!existsSync(FEEDS)) return `no snapshots at ${FEEDS} (RISKCHECK_FEEDS names another folder)`;
  const feeds = serveFeeds();
  const dir = freshDataDir();
  try {
    writeSources(dir, trialSources(feeds.base).sources);
    const update = Bun.spawn([...cli, "update", "--data-dir", dir], { cwd: ROOT, stdout: "ignore", stderr: "pipe" });
    const [code, stderr] = await Promise.all([update.exited, new Response(update.stderr).text()]);
    if (code !== 0) return `the default update failed (exit ${code}): ${stderr.trim().split("\n").at(-1)}`;
    const env = { ...serverEnv, RISKCHECK_DATA_DIR: dir, RISKCHECK_DB: join(dir, "bench.sqlite") };
    const updatedKey = createKey(env);
    const updated = await startProcess([...cli, "serve", "--port", "0"], env, /listening on (http:\/\/\S+)/);
    try {
      return (await memoryWhileServing([{ server: updated, key: updatedKey }], dir))[0];
    } finally {
      updated.proc.kill("SIGTERM");
      await updated.proc.exited;
    }
  } finally {
    feeds.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const rss = peakRssMb(riskcheck.proc.pid);
riskcheck.proc.kill("SIGTERM");
unlimited.proc.kill("SIGTERM");
baseline.proc.kill("SIGTERM");
floor?.proc.kill("SIGTERM");
ceiling?.proc.kill("SIGTERM");
await riskcheck.proc.exited;

// Starts alternating, after the other servers are gone, so that all sides meet the same machine.
type Start = { ms: number; cpuMs: number };
const starts: { baseline: Start[]; binary: Start[]; riskcheck: Start[]; binaryFirst: Start | null } = {
  baseline: [],
  binary: [],
  riskcheck: [],
  binaryFirst: null,
};
if (selected("start")) {
  const startEnv = { ...serverEnv, RISKCHECK_DB: join(work, "start.sqlite") };
  // The binary alone in a folder, its data directory written by its first start (timed apart), as a user deploys it.
  const binary = join(work, "binary", "riskcheck");
  mkdirSync(join(work, "binary", "data"), { recursive: true });
  copyFileSync(values.binary ?? buildBinary(), binary);
  chmodSync(binary, 0o755);
  const binaryEnv = {
    ...serverEnv,
    RISKCHECK_DATA_DIR: join(work, "binary", "data"),
    RISKCHECK_DB: join(work, "binary", "data", "riskcheck.sqlite"),
  };
  starts.binaryFirst = await timeToFirstAnswer([binary, "serve", "--port", "0"], binaryEnv, "/healthz");
  for (let i = 0; i < Number(values.starts); i++) {
    starts.baseline.push(
      await timeToFirstAnswer([process.execPath, "bench/baseline-server.ts", String(sampleBodySize)], {}, "/"),
    );
    starts.binary.push(await timeToFirstAnswer([binary, "serve", "--port", "0"], binaryEnv, "/healthz"));
    starts.riskcheck.push(await timeToFirstAnswer([...cli, "serve", "--port", "0"], startEnv, "/healthz"));
  }
}

/** dist/riskcheck, built now from this checkout (`bun run build`). */
function buildBinary(): string {
  console.log("start: building dist/riskcheck (bun run build; --binary FILE takes a built one)");
  const built = Bun.spawnSync([process.execPath, "build.ts"], { cwd: ROOT, stdout: "inherit", stderr: "inherit" });
  if (built.exitCode !== 0) throw new Error("bun run build failed");
  return join(ROOT, "dist", "riskcheck");
}

const rows = scenarios.map((s) => {
  const b = results[s.name].baseline;
  const r = results[s.name].riskcheck;
  const row = {
    scenario: s.name,
    baseline_rps: Math.round(median(b.map(rps))),
    riskcheck_rps: Math.round(median(r.map(rps))),
    ratio: median(r.map(rps)) / median(b.map(rps)),
    baseline_p50_ms: median(b.map((x) => x.p50_us)) / 1000,
    baseline_p99_ms: median(b.map((x) => x.p99_us)) / 1000,
    p50_ms: median(r.map((x) => x.p50_us)) / 1000,
    p99_ms: median(r.map((x) => x.p99_us)) / 1000,
    p99_ratio: median(r.map((x) => x.p99_us)) / median(b.map((x) => x.p99_us)),
    baseline_cpu_us: median(b.map((x) => x.server_cpu_us)),
    cpu_us: median(r.map((x) => x.server_cpu_us)),
    errors: r.reduce((n, x) => n + x.errors, 0),
    non2xx: r.reduce((n, x) => n + x.non2xx, 0),
  };
  return row;
});

console.log(
  `\nriskcheck bench: ${ROUNDS} rounds × ${DURATION}s per side, ${CONNECTIONS} connections, wrk -t1, medians`,
);
console.table(
  rows.map((r) => ({
    scenario: r.scenario,
    "baseline req/s": r.baseline_rps,
    "riskcheck req/s": r.riskcheck_rps,
    ratio: r.ratio.toFixed(2),
    "p50 ms": r.p50_ms.toFixed(2),
    "p99 ms": r.p99_ms.toFixed(2),
    "baseline p99 ms": r.baseline_p99_ms.toFixed(2),
    "p99 / baseline": r.p99_ratio.toFixed(2),
    "CPU µs/req": `${r.cpu_us.toFixed(1)} (${r.baseline_cpu_us.toFixed(1)})`,
    "non-2xx": r.non2xx,
  })),
);
console.log("CPU µs/req: the server process's CPU time per request, all threads (the baseline's in brackets)");
if (floor)
  console.log(
    "floor: the IP check's HTTP work alone (same app setup, admission and headers, fixed body, no lookup): the best any route can do here",
  );
if (ceiling)
  console.log(
    "ceiling: the floor with the address parsed and a real answer's body written for it: the IP check if its lookups and JSON cost nothing",
  );
console.log(`peak RSS ${rss.toFixed(0)} MB; start-up to ready ${riskcheck.startupMs.toFixed(0)} ms`);
const mib = (n: number) => n.toFixed(0);
const line = (m: ServingMemory) =>
  `RSS ${mib(m.rss)}, anonymous ${mib(m.anonymous)} (PSS ${mib(m.pss)}); of the data directory ${mib(m.data.mapped)} mapped, ${mib(m.data.resident)} resident`;
if (memory.bundled || memory.afterUpdate)
  console.log("memory while answering new random addresses (/proc/PID/smaps_rollup, MiB; goal: anonymous ≤ 80):");
if (memory.bundled) console.log(`  bundled data: ${line(memory.bundled)}`);
if (memory.two) {
  const [a, b] = memory.two;
  console.log(
    `  two servers on that data directory at once: RSS ${mib(a.rss)} + ${mib(b.rss)} = ${mib(a.rss + b.rss)}, PSS (shared pages counted once) ${mib(a.pss)} + ${mib(b.pss)} = ${mib(a.pss + b.pss)}; shared ${mib(a.shared)} and ${mib(b.shared)}`,
  );
}
if (typeof memory.afterUpdate === "string")
  console.log(`  after a default update: not measured, ${memory.afterUpdate}`);
else if (memory.afterUpdate) console.log(`  after a default update on the snapshots: ${line(memory.afterUpdate)}`);
if (starts.riskcheck.length > 0) {
  const [bare, binary, source] = [starts.baseline, starts.binary, starts.riskcheck].map((xs) =>
    median(xs.map((s) => s.ms)),
  );
  const [bareCpu, binaryCpu, sourceCpu] = [starts.baseline, starts.binary, starts.riskcheck].map((xs) =>
    median(xs.map((s) => s.cpuMs)),
  );
  console.log(
    `start (medians of ${starts.riskcheck.length} alternating starts): bare Bun.serve to its first answer ${bare.toFixed(0)} ms; ` +
      `to /healthz 200 the binary ${binary.toFixed(0)} ms, ${(binary / bare).toFixed(1)}× (goal ≤ 4×), from source ` +
      `${source.toFixed(0)} ms, ${(source / bare).toFixed(1)}×; CPU by then ${bareCpu.toFixed(0)}, ${binaryCpu.toFixed(0)} and ` +
      `${sourceCpu.toFixed(0)} ms; the binary's first start (writing its data) ${starts.binaryFirst!.ms.toFixed(0)} ms`,
  );
}
if (assessCost.assess.length > 0) {
  const [email, ip, assessed] = [assessCost.email, assessCost.ip, assessCost.assess].map((xs) =>
    median(xs.map((x) => x.server_cpu_us)),
  );
  const non2xx = Object.values(assessCost).reduce((n, xs) => n + xs.reduce((m, x) => m + x.non2xx, 0), 0);
  console.log(
    `assess (an email and an address): ${assessed.toFixed(1)} µs CPU/req against an email check's ${email.toFixed(1)} + an IP check's ${ip.toFixed(1)}: ${(assessed / (email + ip)).toFixed(2)}× (goal ≤ 1.2×); ${Math.round(median(assessCost.assess.map(rps)))} req/s; non-2xx ${non2xx}`,
  );
}
if (rulesCost.rules.length > 0) {
  const pairs = rulesCost.rules.map((r, i) => ({ rules: r, none: rulesCost.none[i] }));
  const more = (cpu: (x: WrkResult) => number) => {
    const each = pairs.map((p) => (cpu(p.rules) / cpu(p.none) - 1) * 100).sort((a, b) => a - b);
    return `${median(each).toFixed(1)} % more (pairs ${each[0].toFixed(1)} .. ${each.at(-1)!.toFixed(1)} %)`;
  };
  const us = (xs: WrkResult[], cpu: (x: WrkResult) => number) => median(xs.map(cpu)).toFixed(1);
  const serving = (x: WrkResult) => x.serving_cpu_us;
  const all = (x: WrkResult) => x.server_cpu_us;
  console.log(
    `assess with 50 rules, ${pairs.length} pairs on two servers: serving thread ${us(rulesCost.rules, serving)} µs CPU/req against ${us(rulesCost.none, serving)} without, ${more(serving)} (goal ≤ 5 %); whole process ${us(rulesCost.rules, all)} against ${us(rulesCost.none, all)}, ${more(all)}; non-2xx ${[...rulesCost.rules, ...rulesCost.none].reduce((n, x) => n + x.non2xx, 0)}`,
  );
}
const limitsShare =
  limitsCost.limited.length > 0
    ? 1 - median(limitsCost.limited.map(rps)) / median(limitsCost.unlimited.map(rps))
    : null;
if (limitsShare !== null) {
  console.log(
    `rate limit + quota on the IP check: ${Math.round(median(limitsCost.limited.map(rps)))} req/s with, ${Math.round(median(limitsCost.unlimited.map(rps)))} without: ${(limitsShare * 100).toFixed(1)} % of throughput`,
  );
}

if (onPostgres.postgres.length > 0) {
  const [sqliteRps, postgresRps] = [median(onPostgres.sqlite.map(rps)), median(onPostgres.postgres.map(rps))];
  const cpu = (xs: WrkResult[]) => median(xs.map((x) => x.server_cpu_us)).toFixed(1);
  console.log(
    `IP check with PostgreSQL: ${Math.round(postgresRps)} req/s against ${Math.round(sqliteRps)} with SQLite (${((postgresRps / sqliteRps) * 100).toFixed(1)} %); CPU µs/req ${cpu(onPostgres.postgres)} against ${cpu(onPostgres.sqlite)}; non-2xx ${onPostgres.postgres.reduce((n, x) => n + x.non2xx, 0)}`,
  );
}

const commit =
  Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout.toString().trim() || "unknown";
const out = join(import.meta.dir, "results", `${new Date().toISOString().replace(/[:.]/g, "-")}-${commit}.json`);
writeFileSync(
  out,
  JSON.stringify(
    {
      commit,
      date: new Date().toISOString(),
      duration_s: DURATION,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      rows,
      peak_rss_mb: rss,
      startup_ms: riskcheck.startupMs,
      limits_share: limitsShare,
      raw: results,
      limits: limitsCost,
      assess: assessCost,
      rules: rulesCost,
      postgres: onPostgres,
      memory,
      starts,
    },
    null,
    2,
  ),
);
console.log(`saved ${out}`);
