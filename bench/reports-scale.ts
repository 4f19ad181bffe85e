/**
 * Local reports at scale (issue 39): a server's start-up time and RSS with N stored reports
 * against none, and the GET /v1/check latency while `reports delete` takes a third of them
 * back. Any checkout can be measured (`--root`), so that the code before a change and after
 * it run on the same database.
 *
 *   bun bench/reports-scale.ts make DB [N=1000000]        # 3 report keys, N reports of N distinct addresses, over 30 days
 *   bun bench/reports-scale.ts start DB [--root DIR]      # start-up and RSS, with DB and with an empty copy of its keys
 *   bun bench/reports-scale.ts delete DB [--root DIR] [--by-ip]   # check latency before and during `reports delete --key k1` (--by-ip: one address's)
 *
 * One server, loopback only; every child is stopped before the script ends.
 */
import { Database } from "bun:sqlite";
import { copyFileSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

const [mode, dbPath, ...rest] = process.argv.slice(2);
const rootAt = rest.indexOf("--root");
const ROOT = resolve(rootAt >= 0 ? rest[rootAt + 1] : join(import.meta.dir, ".."));
const CLI = join(ROOT, "src/cli/main.ts");
const DAY = 86_400_000;

function cli(args: string[], env: Record<string, string>): string {
  const r = Bun.spawnSync([process.execPath, CLI, ...args], {
    env: { ...process.env, ...env },
    stdin: "ignore",
    timeout: 600_000,
  });
  if (r.exitCode !== 0) throw new Error(`${args.join(" ")}: ${r.stderr}`);
  return r.stdout.toString();
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/)!;
  return Number(line[1]) / 1024;
}

async function serve(db: string) {
  const started = performance.now();
  const proc = Bun.spawn(
    [
      process.execPath,
      "--max-http-header-size=65536",
      CLI,
      "serve",
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--update-every",
      "off",
      "--data-dir",
      join(ROOT, "data"),
    ],
    {
      env: { ...process.env, RISKCHECK_DB: db, RISKCHECK_RATE_PER_MINUTE: "0" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  let output = "";
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of proc.stdout) output += decoder.decode(chunk);
  })();
  void (async () => {
    for await (const chunk of proc.stderr) output += decoder.decode(chunk);
  })();
  while (!/listening on (http:\/\/\S+)/.test(output)) {
    if (proc.exitCode !== null || performance.now() - started > 300_000) {
      proc.kill("SIGKILL");
      throw new Error(`serve did not start:\n${output}`);
    }
    await Bun.sleep(10);
  }
  const startMs = performance.now() - started;
  const url = output.match(/listening on (http:\/\/\S+)/)![1];
  return {
    proc,
    url,
    startMs,
    output: () => output,
    stop: async () => (
      proc.kill("SIGTERM"), await Promise.race([proc.exited, Bun.sleep(10_000).then(() => proc.kill("SIGKILL"))])
    ),
  };
}

if (mode === "make") {
  const n = Number(rest[0] ?? 1_000_000);
  rmSync(dbPath, { force: true });
  const env = { RISKCHECK_DB: dbPath };
  for (const name of ["k1", "k2", "k3"]) cli(["keys", "create", "--name", name, "--permissions", "check,report"], env);
  cli(["keys", "create", "--name", "checker"], env);
  const db = new Database(dbPath);
  const keys = db
    .query<{ id: string }, []>("SELECT id FROM api_keys WHERE name IN ('k1','k2','k3') ORDER BY name")
    .all()
    .map((k) => k.id);
  const insert = db.query("INSERT INTO reports (key_id, ip, category, comment, reported_at) VALUES (?, ?, ?, NULL, ?)");
  const categories = ["bot", "probe", "rate", "attack", "crawler"];
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const a = 0x51000000 + i; // from 81.0.0.0 on: global unicast
      insert.run(
        keys[i % 3],
        `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`,
        categories[i % 5],
        now - Math.floor((i / n) * 30 * DAY),
      );
    }
  })();
  db.close();
  console.log(`${dbPath}: ${n} reports by 3 keys`);
} else if (mode === "start") {
  // The same keys, no reports: what the server costs without them.
  const empty = `${dbPath}.empty`;
  copyFileSync(dbPath, empty);
  const e = new Database(empty);
  e.exec("DELETE FROM reports; VACUUM");
  e.close();
  for (const [label, db] of [
    ["none", empty],
    ["stored", dbPath],
  ] as const) {
    for (let round = 0; round < 2; round++) {
      const s = await serve(db);
      await Bun.sleep(3_000);
      console.log(
        `${label} round ${round}: ready in ${(s.startMs / 1000).toFixed(2)} s, RSS ${rssMb(s.proc.pid).toFixed(0)} MB`,
      );
      await s.stop();
    }
  }
  rmSync(empty, { force: true });
} else if (mode === "delete") {
  const work = `${dbPath}.work`;
  copyFileSync(dbPath, work);
  const env = { RISKCHECK_DB: work };
  const key = cli(["keys", "create", "--name", `bench-${Date.now()}`], env)
    .trimEnd()
    .split("\n")
    .at(-1)!;
  const s = await serve(work);
  const samples: { at: number; ms: number }[] = [];
  let running = true;
  const client = async () => {
    for (let i = 0; running; i++) {
      const t = performance.now();
      await (
        await fetch(`${s.url}/v1/check?email=user${i}@gmail.com`, { headers: { authorization: `Bearer ${key}` } })
      ).arrayBuffer();
      samples.push({ at: t, ms: performance.now() - t });
      await Bun.sleep(2);
    }
  };
  const clients = [client(), client()];
  await Bun.sleep(5_000);
  const deleteAt = performance.now();
  // Code from before `--key` alone takes back one address's reports: the servers' full reread is what it cost.
  const args = rest.includes("--by-ip")
    ? ["reports", "delete", "--ip", "81.0.0.0"]
    : ["reports", "delete", "--key", "k1"];
  console.log(cli(args, env).trim());
  const deletedAt = performance.now();
  const rssBefore = rssMb(s.proc.pid);
  let rssPeak = rssBefore;
  // Every instance reads the store every 3 s: 10 s covers its read of the deletion.
  while (performance.now() - deletedAt < 10_000) {
    rssPeak = Math.max(rssPeak, rssMb(s.proc.pid));
    await Bun.sleep(100);
  }
  running = false;
  await Promise.all(clients);
  await s.stop();
  rmSync(work, { force: true });
  const pct = (xs: number[], p: number) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
  const before = samples.filter((x) => x.at < deleteAt).map((x) => x.ms);
  const during = samples.filter((x) => x.at >= deleteAt).map((x) => x.ms);
  const fmt = (xs: number[]) =>
    `n=${xs.length} p50 ${pct(xs, 0.5).toFixed(2)} ms, p99 ${pct(xs, 0.99).toFixed(2)} ms, max ${Math.max(...xs).toFixed(1)} ms`;
  console.log(`${args.join(" ")}: CLI ${((deletedAt - deleteAt) / 1000).toFixed(2)} s`);
  console.log(`before: ${fmt(before)}`);
  console.log(`during the delete and the 10 s after: ${fmt(during)}`);
  console.log(`RSS ${rssBefore.toFixed(0)} MB before the servers' read, peak ${rssPeak.toFixed(0)} MB`);
} else {
  console.error("usage: bun bench/reports-scale.ts make|start|delete DB [N] [--root DIR]");
  process.exit(2);
}
