/**
 * `bun bench/override-writes.ts`: what a write of an override line costs with many stored, and
 * what a flood of them does to the checks, on SQLite (and PostgreSQL with `--postgres`). For
 * each size (1,000, 10,000, 100,000 stored IP lines by default) a `riskcheck serve` over them:
 *
 * - writes: POST /v1/overrides of a new line, one after another, then DELETE of it: p50 and p99
 *   as the client sees them, and the server's own mean time per write (its /metrics histogram);
 * - checks: a client checking an email every 2 ms (as issue 54 measured), quiet and while one
 *   manage key floods POSTs and DELETEs back to back (wrk, bench/override-flood.lua), in
 *   alternating rounds: p50 and p99 of each, the flood's p99 against the quiet one (medians).
 *
 * `--rate N` holds the flood to N writes a second (a key's default rate limit is 10 a second).
 *
 *   bun bench/override-writes.ts [--sizes 1000,10000,100000] [--writes 400] [--seconds 4] [--rounds 3] [--rate 0] [--postgres]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type IpOverrideLine, ipOverrideLine } from "../src/ip/overrides/ip-override.ts";
import { openPostgresStores } from "../src/stores/postgres/stores.ts";
import { openSqliteStores } from "../src/stores/sqlite/stores.ts";
import type { Stores } from "../src/stores/stores.ts";
import { ownPostgresServer } from "../test/support/postgres.ts";
import { median, requireWrk, startProcess } from "./load.ts";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000,100000" },
    writes: { type: "string", default: "400" },
    seconds: { type: "string", default: "4" },
    rounds: { type: "string", default: "3" },
    rate: { type: "string", default: "0" },
    postgres: { type: "boolean", default: false },
  },
});
const SIZES = values.sizes.split(",").map(Number);
const WRITES = Number(values.writes);
const ROUND_MS = Number(values.seconds) * 1000;
const ROUNDS = Number(values.rounds);
const CHECK_EVERY_MS = 2;

requireWrk();
const work = mkdtempSync(join(tmpdir(), "riskcheck-bench-override-writes-"));
const cli = [process.execPath, "src/cli/main.ts"];
const now = new Date();
const line = (target: string): IpOverrideLine =>
  ipOverrideLine({ target, action: "deny", reason: "bench", author: "bench" }, now);
/** The n-th stored line's address: public space from 11.0.0.0 up, one address a line. */
const storedTarget = (n: number) => `11.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (x: number) => x.toFixed(2);

async function stored(
  size: number,
): Promise<{ env: Record<string, string>; keys: { manage: string; check: string }; close: () => Promise<void> }> {
  const pg = values.postgres ? await ownPostgresServer({ synchronous_commit: "on", fsync: "on" }) : null;
  const file = join(work, `lines-${size}.sqlite`);
  const database: Record<string, string> = pg ? { RISKCHECK_DATABASE_URL: pg.adminUrl } : { RISKCHECK_DB: file };
  const stores: Stores = pg ? await openPostgresStores(pg.adminUrl) : openSqliteStores(file);
  for (let from = 0; from < size; from += 10_000)
    await stores.transaction(async (tx) => {
      for (let n = from; n < Math.min(size, from + 10_000); n++) await tx.ipOverrides.put(line(storedTarget(n)));
    });
  const manage = (await stores.keys.create({ name: "bench-tool", permissions: ["manage"] })).secret;
  const check = (await stores.keys.create({ name: "bench-checks" })).secret;
  await stores.close();
  return {
    env: {
      ...database,
      RISKCHECK_RATE_PER_MINUTE: "0",
      RISKCHECK_IP_QUOTA_PER_MONTH: "0",
      RISKCHECK_MAX_OVERRIDE_LINES: "10000000",
      RISKCHECK_MAX_OVERRIDE_LINES_PER_KEY: "10000000",
      RISKCHECK_UPDATE_EVERY: "off",
    },
    keys: { manage, check },
    close: async () => void (await pg?.stop()),
  };
}

for (const size of SIZES) {
  const { env, keys, close } = await stored(size);
  const server = await startProcess([...cli, "serve", "--port", "0"], env, /listening on (http:\/\/\S+)/);
  const post = (target: string) =>
    fetch(`${server.url}/v1/overrides`, {
      method: "POST",
      headers: { authorization: `Bearer ${keys.manage}`, "content-type": "application/json" },
      body: JSON.stringify({ kind: "ip", target, action: "deny", reason: "bench write" }),
    });
  const remove = (target: string) =>
    fetch(`${server.url}/v1/overrides/ip:${target}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${keys.manage}` },
    });
  const timed = async (request: () => Promise<Response>, expected: number) => {
    const started = performance.now();
    const res = await request();
    await res.arrayBuffer();
    if (res.status !== expected) throw new Error(`expected ${expected}, got ${res.status}`);
    return performance.now() - started;
  };

  /** The server's time spent answering /v1/overrides so far, and how many: from its request histogram. */
  const serverTime = async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const of = (name: string) =>
      Number(new RegExp(`^${name}\\{endpoint="/v1/overrides"\\} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
    return {
      seconds: of("riskcheck_request_duration_seconds_sum"),
      count: of("riskcheck_request_duration_seconds_count"),
    };
  };
  // Writes one after another: a new line, then its removal.
  const before = await serverTime();
  const writes: number[] = [];
  const removals: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const target = `12.0.${i >> 8}.${i & 255}`;
    writes.push(await timed(() => post(target), 201));
    removals.push(await timed(() => remove(target), 204));
  }
  const after = await serverTime();
  const serverMs = ((after.seconds - before.seconds) * 1000) / (after.count - before.count);

  /**
   * A check every 2 ms for a round, alone or while wrk (its own process, as another client would
   * be) floods writes back to back: the checks' latencies, and the writes the flood made.
   */
  const round = async (flooding: boolean, n: number) => {
    const until = performance.now() + ROUND_MS;
    const flood = flooding
      ? Bun.spawn(
          [
            "wrk",
            "-t1",
            "-c1",
            `-d${ROUND_MS / 1000}s`,
            "-s",
            join(import.meta.dir, "override-flood.lua"),
            server.url,
            "--",
            keys.manage,
            String(n),
            values.rate,
          ],
          { stdout: "pipe", stderr: "pipe" },
        )
      : null;
    const checks: number[] = [];
    for (let i = 0; performance.now() < until; i++) {
      checks.push(
        await timed(
          () =>
            fetch(`${server.url}/v1/check?email=u${i}@gmail.com`, {
              headers: { authorization: `Bearer ${keys.check}` },
            }),
          200,
        ),
      );
      await Bun.sleep(CHECK_EVERY_MS);
    }
    let written = 0;
    if (flood) {
      const out = await new Response(flood.stdout).text();
      await flood.exited;
      const line = out.split("\n").find((l) => l.startsWith("BENCH "));
      if (!line) throw new Error(`wrk failed: ${await new Response(flood.stderr).text()}${out}`);
      const result = JSON.parse(line.slice(6)) as { requests: number; non2xx: number; errors: number };
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`the flood had ${result.non2xx} non-2xx and ${result.errors} errors`);
      written = result.requests;
    }
    return { p50: percentile(checks, 0.5), p99: percentile(checks, 0.99), written };
  };
  const quiet: { p50: number; p99: number }[] = [];
  const flood: { p50: number; p99: number; written: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    quiet.push(await round(false, r));
    flood.push(await round(true, r));
  }
  server.proc.kill("SIGTERM");
  await server.proc.exited;
  await close();
  const [qp50, qp99, fp50, fp99] = [
    median(quiet.map((q) => q.p50)),
    median(quiet.map((q) => q.p99)),
    median(flood.map((f) => f.p50)),
    median(flood.map((f) => f.p99)),
  ];
  const perSecond = median(flood.map((f) => f.written)) / (ROUND_MS / 1000);
  console.log(
    `${values.postgres ? "PostgreSQL" : "SQLite"}, ${size} lines stored: server ${ms(serverMs)} ms a write; POST p50 ` +
      `${ms(percentile(writes, 0.5))} ms, p99 ${ms(percentile(writes, 0.99))} ms; DELETE p50 ` +
      `${ms(percentile(removals, 0.5))} ms, p99 ${ms(percentile(removals, 0.99))} ms; check p50 / p99 quiet ` +
      `${ms(qp50)} / ${ms(qp99)} ms, during ${Math.round(perSecond)} writes/s ${ms(fp50)} / ${ms(fp99)} ms: p99 ratio ` +
      `${(fp99 / qp99).toFixed(2)}`,
  );
}
rmSync(work, { recursive: true, force: true });
