/**
 * `bun bench/reports.ts`: local abuse reports on SQLite.
 *
 * 1. Ingestion: batches of 1,000 new reports (new addresses) posted back to back by a few
 *    clients to `riskcheck serve` until 100,000 are stored; reports/s is accepted reports
 *    over wall time, each answer given only once its batch is committed.
 * 2. The IP check with those 100,000 reports held against a server with none: `ip-distinct`
 *    (a new random public address every request) and `ip-reported` (addresses that were
 *    reported), alternating A/B rounds, medians.
 *
 *   bun bench/reports.ts [--reports 100000] [--clients 4] [--duration 5] [--rounds 3] [--connections 64]
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DISTINCT, type WrkResult, median, requireWrk, rps, startProcess, wrk as wrkWith, writeLines } from "./load.ts";

const { values } = parseArgs({
  options: {
    reports: { type: "string", default: "100000" },
    clients: { type: "string", default: "4" },
    duration: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "64" },
  },
});
const TOTAL = Number(values.reports);
const CLIENTS = Number(values.clients);
const ROUNDS = Number(values.rounds);
const BATCH = 1_000;
requireWrk();
const load = { durationSeconds: Number(values.duration), connections: Number(values.connections) };

const work = mkdtempSync(join(tmpdir(), "riskcheck-bench-reports-"));
const cli = [process.execPath, "src/cli/main.ts"];
const env = (db: string) => ({
  RISKCHECK_DB: db,
  RISKCHECK_UPDATE_EVERY: "off",
  RISKCHECK_RATE_PER_MINUTE: "0",
  RISKCHECK_IP_QUOTA_PER_MONTH: "0",
});
const createKey = (db: string) =>
  Bun.spawnSync([...cli, "keys", "create", "--name", "bench", "--permissions", "check,report"], {
    env: { ...process.env, ...env(db) },
  })
    .stdout.toString()
    .trim()
    .split("\n")
    .at(-1)!;

const [withDb, withoutDb] = [join(work, "with.sqlite"), join(work, "without.sqlite")];
const [withKey, withoutKey] = [createKey(withDb), createKey(withoutDb)];
const withReports = await startProcess([...cli, "serve", "--port", "0"], env(withDb), /listening on (http:\/\/\S+)/);
const withoutReports = await startProcess(
  [...cli, "serve", "--port", "0"],
  env(withoutDb),
  /listening on (http:\/\/\S+)/,
);

// Addresses 11.0.0.0 upwards: global unicast, one new address per report.
const address = (n: number) => `11.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
let next = 0;
let accepted = 0;
const latencies: number[] = [];
const client = async () => {
  while (next < TOTAL) {
    const first = next;
    next += BATCH;
    const reports = Array.from({ length: Math.min(BATCH, TOTAL - first) }, (_, i) => ({
      ip: address(first + i),
      category: "bot",
      comment: "bench",
    }));
    const started = performance.now();
    const res = await fetch(`${withReports.url}/v1/reports`, {
      method: "POST",
      headers: { authorization: `Bearer ${withKey}`, "content-type": "application/json" },
      body: JSON.stringify({ reports }),
    });
    if (res.status !== 200) throw new Error(`POST /v1/reports: ${res.status} ${await res.text()}`);
    accepted += ((await res.json()) as { accepted: number }).accepted;
    latencies.push(performance.now() - started);
  }
};
const started = performance.now();
await Promise.all(Array.from({ length: CLIENTS }, client));
const seconds = (performance.now() - started) / 1000;
console.log(
  `ingestion: ${accepted} reports in ${seconds.toFixed(2)} s = ${Math.round(accepted / seconds)} reports/s (${CLIENTS} clients, batches of ${BATCH}; median batch ${median(latencies).toFixed(1)} ms, slowest ${Math.max(...latencies).toFixed(1)} ms)`,
);

const reported = writeLines(
  work,
  "reported.txt",
  Array.from({ length: 10_000 }, (_, i) => `/v1/ip-reputation-check?ip=${address((i * 7919) % TOTAL)}`),
);
const wrk = (server: typeof withReports, paths: string, key: string) => wrkWith(server, paths, key, load);
wrk(withReports, DISTINCT, withKey);
wrk(withoutReports, DISTINCT, withoutKey);
for (const [name, paths] of [
  ["ip-distinct", DISTINCT],
  ["ip-reported", reported],
] as const) {
  const a: WrkResult[] = [];
  const b: WrkResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    a.push(wrk(withoutReports, paths, withoutKey));
    b.push(wrk(withReports, paths, withKey));
  }
  const [ra, rb] = [median(a.map(rps)), median(b.map(rps))];
  const cpu = (xs: WrkResult[]) => median(xs.map((x) => x.server_cpu_us)).toFixed(1);
  console.log(
    `${name}: ${Math.round(rb)} req/s with ${accepted} reports stored, ${Math.round(ra)} with none: ratio ${(rb / ra).toFixed(3)}; CPU µs/req ${cpu(b)} against ${cpu(a)}; p99 ${(median(b.map((x) => x.p99_us)) / 1000).toFixed(2)} ms against ${(median(a.map((x) => x.p99_us)) / 1000).toFixed(2)}; non-2xx ${[...a, ...b].reduce((n, x) => n + x.non2xx, 0)}`,
  );
}

for (const server of [withReports, withoutReports]) server.proc.kill("SIGTERM");
await Promise.all([withReports.proc.exited, withoutReports.proc.exited]);
