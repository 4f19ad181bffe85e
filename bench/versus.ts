/**
 * Two builds head to head: both servers up at once on the bundled data, each with its
 * own database and key, wrk rounds alternating between them (A, B, A, B …) per scenario.
 * Prints each side's median requests/s and server CPU µs per request, and B/A.
 *
 *   bun bench/versus.ts --a OLD_BINARY --b NEW_BINARY [--rounds 4] [--duration 5] [--connections 64] [--only ip-distinct,email]
 *
 * A side is a compiled binary (`bun run build`; for another commit, build it in a
 * `git worktree` of that commit), another checkout's sources when given as its directory
 * (a `git worktree` with node_modules), or this checkout's when given as `source`. Both read
 * this checkout's data/.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { DISTINCT, ROOT, type WrkResult, median, requireWrk, rps, startProcess, writeLines, wrk } from "./load.ts";
import { makeEmailPool } from "./pools.ts";

const { values } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    duration: { type: "string", default: "5" },
    rounds: { type: "string", default: "4" },
    connections: { type: "string", default: "64" },
    only: { type: "string", default: "ip-distinct,email" },
  },
});
if (!values.a || !values.b)
  throw new Error(
    "usage: bun bench/versus.ts --a BINARY --b BINARY [--rounds 4] [--duration 5] [--only ip-distinct,email]",
  );
requireWrk();
const settings = { durationSeconds: Number(values.duration), connections: Number(values.connections) };
const rounds = Number(values.rounds);

const work = mkdtempSync(join(tmpdir(), "riskcheck-versus-"));
const pools: Record<string, string> = {
  "ip-distinct": DISTINCT,
  email: writeLines(
    work,
    "email.txt",
    makeEmailPool(join(ROOT, "data"), 10_000).map((e) => `/v1/check?email=${encodeURIComponent(e)}`),
  ),
};
const scenarios = values.only.split(",").filter((name) => name in pools);

const command = (side: string) =>
  side === "source"
    ? [process.execPath, "src/cli/main.ts"]
    : existsSync(join(side, "src/cli/main.ts"))
      ? [process.execPath, join(resolve(side), "src/cli/main.ts")]
      : [side];
async function start(label: string, side: string) {
  const env = {
    RISKCHECK_DATA_DIR: existsSync(join(side, "src/cli/main.ts")) ? join(resolve(side), "data") : join(ROOT, "data"),
    RISKCHECK_DB: join(work, `${label}.sqlite`),
    RISKCHECK_UPDATE_EVERY: "off",
    RISKCHECK_RATE_PER_MINUTE: "1000000000",
    RISKCHECK_RATE_BURST: "1000000000",
    RISKCHECK_IP_QUOTA_PER_MONTH: "1000000000000",
  };
  const created = Bun.spawnSync([...command(side), "keys", "create", "--name", "versus"], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  const key = created.stdout.toString().trim().split("\n").at(-1)!;
  if (!key.startsWith("rk_")) throw new Error(`${label}: keys create failed: ${created.stderr.toString()}`);
  const server = await startProcess([...command(side), "serve", "--port", "0"], env, /listening on (http:\/\/\S+)/);
  return { label, side, key, server };
}

const sides = [await start("a", values.a), await start("b", values.b)];
try {
  for (const s of sides) for (const name of scenarios) wrk(s.server, pools[name], s.key, settings); // warm-up
  const results: Record<string, Record<string, WrkResult[]>> = {};
  for (const name of scenarios) {
    results[name] = { a: [], b: [] };
    for (let round = 0; round < rounds; round++) {
      // Alternate which side goes first, so neither always follows the other's garbage.
      for (const s of round % 2 === 0 ? sides : [...sides].reverse())
        results[name][s.label].push(wrk(s.server, pools[name], s.key, settings));
    }
  }
  console.log(
    `\nA: ${values.a}\nB: ${values.b}\n${rounds} rounds × ${settings.durationSeconds}s per side, ${settings.connections} connections, wrk -t1, medians`,
  );
  console.table(
    scenarios.map((name) => {
      const [a, b] = [results[name].a, results[name].b];
      return {
        scenario: name,
        "A req/s": Math.round(median(a.map(rps))),
        "B req/s": Math.round(median(b.map(rps))),
        "B / A": (median(b.map(rps)) / median(a.map(rps))).toFixed(2),
        "A CPU µs/req": median(a.map((x) => x.server_cpu_us)).toFixed(1),
        "B CPU µs/req": median(b.map((x) => x.server_cpu_us)).toFixed(1),
        "A rounds req/s": a.map((x) => Math.round(rps(x))).join(" "),
        "B rounds req/s": b.map((x) => Math.round(rps(x))).join(" "),
        "non-2xx": [...a, ...b].reduce((n, x) => n + x.non2xx + x.errors, 0),
      };
    }),
  );
} finally {
  for (const s of sides) s.server.proc.kill("SIGTERM");
  await Promise.all(sides.map((s) => s.server.proc.exited));
}
