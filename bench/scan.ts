/**
 * `bun bench/scan.ts`: the bulk checks.
 *
 * 1. `riskcheck scan` over ROWS mixed rows (half email addresses over disposable, free and
 *    corporate domains, half IPv4 addresses that never repeat), one value per line, into a
 *    CSV file: rows/s of the scan itself (the summary's figure, after the data is loaded),
 *    the process's CPU time per row (steadier than rows/s on a shared machine) and its peak
 *    RSS (VmHWM). Goal: ≥ 100,000 rows/s with RSS ≤ 400 MB.
 * 2. `POST /v1/check/batch` against single GETs on one `riskcheck serve` (bundled data,
 *    no limits), alternating rounds: the same number of mixed items each way, IP addresses
 *    never repeating; items/s and the server's CPU time per item.
 *
 * 3. `riskcheck scan --policy` (a backtest, 50 rules that never match, so every row walks them
 *    all) against the same scan without a policy, alternating rounds, over ROWS rows of a CSV
 *    with an email and an IPv4 address each: rows/s and CPU per row, and their ratio.
 *    Goal: ≥ 0.8 of the plain scan's rows/s.
 *
 *   bun bench/scan.ts [--rows 1000000] [--rounds 3] [--items 20000] [--only scan,policy,batch]
 *
 * Prints the figures with the machine's load average and saves them under bench/results/.
 * Every run stops by itself: the scan and each round are bounded by their counts and a timeout.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { benchRules } from "./policy-rules.ts";
import { makeEmailPool } from "./pools.ts";

const ROOT = resolve(import.meta.dir, "..");
const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "1000000" },
    rounds: { type: "string", default: "3" },
    items: { type: "string", default: "20000" },
    only: { type: "string", default: "scan,policy,batch" },
  },
});
const ROWS = Number(values.rows);
const ROUNDS = Number(values.rounds);
const ITEMS = Number(values.items);
const ONLY = new Set(values.only!.split(","));
const cli = [process.execPath, join(ROOT, "src/cli/main.ts")];
const work = mkdtempSync(join(tmpdir(), "riskcheck-bench-scan-"));
const emails = makeEmailPool(join(ROOT, "data"), 100_000);

/** The n-th address of a sequence that never repeats in 2^32 steps (an odd multiplier is a bijection mod 2^32). */
let nextAddress = 1;
function freshIPv4(): string {
  const v = Math.imul(nextAddress++, 0x9e3779b1) >>> 0;
  return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmHWM:"));
  return line ? Number(line.split(/\s+/)[1]) / 1024 : 0;
}

/** One `riskcheck scan` of `file`: the summary's rows/s, the process's CPU seconds and its peak RSS. */
async function runScan(file: string, extra: string[] = []) {
  const proc = Bun.spawn(
    [...cli, "scan", file, ...extra, "--out", join(work, "out.csv"), "--data-dir", join(ROOT, "data")],
    {
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  let peak = 0;
  let cpu = 0;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, peakRssMb(proc.pid));
      cpu = cpuSeconds(proc.pid);
    } catch {
      // The process has just exited.
    }
  }, 50);
  const killer = setTimeout(() => proc.kill(), 600_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearInterval(timer);
  clearTimeout(killer);
  if (code !== 0) throw new Error(`scan failed (${code}): ${stderr}`);
  const rate = /rows in [\d.]+ s, ([\d,]+) rows\/s/.exec(stdout);
  if (!rate) throw new Error(`no rate in the summary: ${stdout}`);
  return { rowsPerSecond: Number(rate[1].replaceAll(",", "")), cpuSeconds: cpu, peakRssMb: peak };
}

const results: Record<string, unknown> = { load_before: loadavg() };

if (ONLY.has("scan")) {
  const input = join(work, "mixed.txt");
  const writer = Bun.file(input).writer();
  for (let i = 0; i < ROWS; i++) writer.write(`${i % 2 === 0 ? emails[(i / 2) % emails.length] : freshIPv4()}\n`);
  await writer.end();
  const oneRow = join(work, "one.txt");
  writeFileSync(oneRow, "someone@gmail.com\n");
  // What starting and loading the snapshot cost, to take out of the CPU time per row.
  const startup = await runScan(oneRow);
  const runs: { rowsPerSecond: number; cpuUsPerRow: number; rowsPerCpuSecond: number; peakRssMb: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const run = await runScan(input);
    const cpuUsPerRow = ((run.cpuSeconds - startup.cpuSeconds) * 1e6) / ROWS;
    runs.push({
      rowsPerSecond: run.rowsPerSecond,
      cpuUsPerRow,
      rowsPerCpuSecond: 1e6 / cpuUsPerRow,
      peakRssMb: run.peakRssMb,
    });
    console.log(
      `scan round ${round + 1}: ${run.rowsPerSecond.toLocaleString("en-US")} rows/s wall, ${cpuUsPerRow.toFixed(2)} µs CPU/row ` +
        `(${Math.round(1e6 / cpuUsPerRow).toLocaleString("en-US")} rows per CPU-second, start-up's ${startup.cpuSeconds.toFixed(1)} s taken out), peak RSS ${run.peakRssMb.toFixed(0)} MB`,
    );
  }
  results.scan = {
    rows: ROWS,
    rounds: runs,
    startup_cpu_seconds: startup.cpuSeconds,
    median_rows_per_second: median(runs.map((r) => r.rowsPerSecond)),
    median_rows_per_cpu_second: median(runs.map((r) => r.rowsPerCpuSecond)),
    max_peak_rss_mb: Math.max(...runs.map((r) => r.peakRssMb)),
  };
}

if (ONLY.has("policy")) {
  const signups = join(work, "signups.csv");
  const writer = Bun.file(signups).writer();
  writer.write("email,ip\n");
  for (let i = 0; i < ROWS; i++) writer.write(`${emails[i % emails.length]},${freshIPv4()}\n`);
  await writer.end();
  const policyFile = join(work, "policy.json");
  writeFileSync(policyFile, JSON.stringify(benchRules(50)));
  const oneRow = join(work, "one-signup.csv");
  writeFileSync(oneRow, "email,ip\nsomeone@gmail.com,8.8.8.8\n");
  const plainStart = await runScan(oneRow);
  const policyStart = await runScan(oneRow, ["--policy", policyFile]);
  const plain: { rowsPerSecond: number; cpuUsPerRow: number }[] = [];
  const decided: typeof plain = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [runs, extra, start] of [
      [plain, [], plainStart],
      [decided, ["--policy", policyFile], policyStart],
    ] as const) {
      const run = await runScan(signups, [...extra]);
      runs.push({ rowsPerSecond: run.rowsPerSecond, cpuUsPerRow: ((run.cpuSeconds - start.cpuSeconds) * 1e6) / ROWS });
    }
    console.log(
      `policy round ${round + 1}: scan ${plain[round].rowsPerSecond.toLocaleString("en-US")} rows/s, ${plain[round].cpuUsPerRow.toFixed(2)} µs CPU/row; ` +
        `scan --policy (50 rules) ${decided[round].rowsPerSecond.toLocaleString("en-US")} rows/s, ${decided[round].cpuUsPerRow.toFixed(2)} µs CPU/row`,
    );
  }
  const ratio = (f: (r: { rowsPerSecond: number; cpuUsPerRow: number }) => number) =>
    median(decided.map(f)) / median(plain.map(f));
  results.policy = {
    rows: ROWS,
    rules: 50,
    plain,
    policy: decided,
    rows_per_second_ratio: ratio((r) => r.rowsPerSecond),
    cpu_per_row_ratio: ratio((r) => r.cpuUsPerRow),
  };
  console.log(
    `scan --policy against scan, medians: ${ratio((r) => r.rowsPerSecond).toFixed(2)} of the rows/s, ${ratio((r) => r.cpuUsPerRow).toFixed(2)}× the CPU per row`,
  );
}

if (ONLY.has("batch")) {
  const env = {
    ...process.env,
    RISKCHECK_DB: join(work, "bench.sqlite"),
    RISKCHECK_RATE_PER_MINUTE: "0",
    RISKCHECK_IP_QUOTA_PER_MONTH: "0",
    RISKCHECK_UPDATE_EVERY: "off",
    RISKCHECK_DATA_DIR: join(ROOT, "data"),
  };
  const key = Bun.spawnSync([...cli, "keys", "create", "--name", "bench"], { env })
    .stdout.toString()
    .trim()
    .split("\n")
    .at(-1)!;
  const server = Bun.spawn([...cli, "serve", "--port", "0"], { env, stdout: "pipe", stderr: "pipe" });
  try {
    const url = await listeningUrl(server.stdout);
    const headers = { authorization: `Bearer ${key}` };
    const items = () =>
      Array.from({ length: ITEMS }, (_, i) =>
        i % 2 === 0 ? { email: emails[Math.floor(Math.random() * emails.length)] } : { ip: freshIPv4() },
      );

    const singles = async (): Promise<void> => {
      const list = items();
      let next = 0;
      const worker = async () => {
        while (next < list.length) {
          const item = list[next++];
          const path =
            "email" in item
              ? `/v1/check?email=${encodeURIComponent(item.email!)}`
              : `/v1/ip-reputation-check?ip=${item.ip}`;
          const res = await fetch(`${url}${path}`, { headers });
          if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
          await res.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: 32 }, worker));
    };
    const batches = async (): Promise<void> => {
      const list = items();
      let next = 0;
      const worker = async () => {
        while (next < list.length) {
          const slice = list.slice(next, (next += 1000));
          const body = JSON.stringify({
            emails: slice.flatMap((i) => ("email" in i ? [i.email] : [])),
            ips: slice.flatMap((i) => ("ip" in i ? [i.ip] : [])),
          });
          const res = await fetch(`${url}/v1/check/batch`, {
            method: "POST",
            headers: { ...headers, "content-type": "application/json" },
            body,
          });
          if (res.status !== 200) throw new Error(`POST /v1/check/batch: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: 2 }, worker));
    };
    const measure = async (run: () => Promise<void>) => {
      const cpu = cpuSeconds(server.pid);
      const started = performance.now();
      await Promise.race([run(), Bun.sleep(300_000).then(() => Promise.reject(new Error("round over 300 s")))]);
      const seconds = (performance.now() - started) / 1000;
      return { itemsPerSecond: ITEMS / seconds, serverCpuUsPerItem: ((cpuSeconds(server.pid) - cpu) * 1e6) / ITEMS };
    };
    await measure(singles); // warm-up, not counted
    const single: { itemsPerSecond: number; serverCpuUsPerItem: number }[] = [];
    const batch: typeof single = [];
    for (let round = 0; round < ROUNDS; round++) {
      single.push(await measure(singles));
      batch.push(await measure(batches));
      console.log(
        `batch round ${round + 1}: single GETs ${Math.round(single.at(-1)!.itemsPerSecond).toLocaleString("en-US")} items/s (${single.at(-1)!.serverCpuUsPerItem.toFixed(1)} µs server CPU/item), ` +
          `batches of 1,000 ${Math.round(batch.at(-1)!.itemsPerSecond).toLocaleString("en-US")} items/s (${batch.at(-1)!.serverCpuUsPerItem.toFixed(1)} µs)`,
      );
    }
    const ratio = median(batch.map((b, i) => b.itemsPerSecond / single[i].itemsPerSecond));
    results.batch = { items_per_round: ITEMS, single, batch, median_ratio_items_per_second: ratio };
    console.log(
      `batch: median ${ratio.toFixed(1)}× the items/s of single GETs (the client is in this process, on the same cores)`,
    );
  } finally {
    server.kill("SIGTERM");
    await Promise.race([server.exited, Bun.sleep(10_000).then(() => server.kill("SIGKILL"))]);
  }
}

results.load_after = loadavg();
console.log(
  `load average before ${(results.load_before as number[]).map((l) => l.toFixed(1)).join(" ")}, after ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} (2 cores)`,
);
const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
const file = join(
  ROOT,
  "bench/results",
  `${new Date().toISOString().replaceAll(":", "-").replace(".", "-")}-scan-${commit}.json`,
);
writeFileSync(file, JSON.stringify(results, null, 2));
console.log(`saved ${file}`);

async function listeningUrl(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
    const match = /listening on (http:\/\/\S+)/.exec(seen);
    if (match) {
      // Keep draining the log so that the server never blocks on a full pipe.
      void (async () => {
        while (!(await reader.read()).done);
      })();
      return match[1].replace(/\/$/, "");
    }
  }
  throw new Error(`serve did not start: ${seen}`);
}
