/**
 * `bun bench/overrides.ts`: the IP check with 10,000 override lines in force against a server
 * with none, on SQLite: `ip-distinct` (a new random public address every request) and
 * `ip-overridden` (addresses the lines decide: their own address, their /24, their network),
 * alternating A/B rounds, medians. The lines: 6,000 addresses, 3,000 /24 ranges, 500 AS
 * numbers, 500 IPv6 /48s, stored as `riskcheck ip allow|deny` stores them.
 *
 *   bun bench/overrides.ts [--lines 10000] [--duration 5] [--rounds 3] [--connections 64]
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { formatIPv4, parseIpAddress } from "../src/ip/address/parse.ts";
import { isGlobalUnicast } from "../src/ip/address/special-purpose.ts";
import { type IpOverrideLine, ipOverrideLine } from "../src/ip/overrides/ip-override.ts";
import { openSqliteStores } from "../src/stores/sqlite/stores.ts";
import { DISTINCT, type WrkResult, median, requireWrk, rps, startProcess, wrk as wrkWith, writeLines } from "./load.ts";

const { values } = parseArgs({
  options: {
    lines: { type: "string", default: "10000" },
    duration: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "64" },
  },
});
const LINES = Number(values.lines);
const ROUNDS = Number(values.rounds);
const load = { durationSeconds: Number(values.duration), connections: Number(values.connections) };

const work = mkdtempSync(join(tmpdir(), "riskcheck-bench-overrides-"));
const cli = [process.execPath, "src/cli/main.ts"];
const env = (db: string) => ({
  RISKCHECK_DB: db,
  RISKCHECK_UPDATE_EVERY: "off",
  RISKCHECK_RATE_PER_MINUTE: "0",
  RISKCHECK_IP_QUOTA_PER_MONTH: "0",
});
const createKey = (db: string) =>
  Bun.spawnSync([...cli, "keys", "create", "--name", "bench"], { env: { ...process.env, ...env(db) } })
    .stdout.toString()
    .trim()
    .split("\n")
    .at(-1)!;

// The same lines every run: a fixed-seed generator over public space (11.0.0.0 upwards, as bench/reports.ts).
let seed = 20261128;
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed);
const publicV4 = (): number => {
  const value = 0x0b000000 + (random() % 0xa0000000);
  return isGlobalUnicast(parseIpAddress(formatIPv4(value))!) ? value : publicV4();
};
const now = new Date();
const line = (target: string): IpOverrideLine =>
  ipOverrideLine({ target, action: random() & 1 ? "allow" : "deny", reason: "bench", author: "bench" }, now);
const lines: IpOverrideLine[] = [];
const share = (n: number) => Math.round((LINES * n) / 10_000);
for (let i = 0; i < share(6_000); i++) lines.push(line(formatIPv4(publicV4())));
for (let i = 0; i < share(3_000); i++) lines.push(line(`${formatIPv4(publicV4() & 0xffffff00)}/24`));
for (let i = 0; i < share(500); i++) lines.push(line(`AS${1 + (random() % 400_000)}`));
for (let i = 0; i < share(500); i++)
  lines.push(line(`2a00:${(random() & 0xffff).toString(16)}:${(random() & 0xffff).toString(16)}::/48`));

const [withDb, withoutDb] = [join(work, "with.sqlite"), join(work, "without.sqlite")];
const [withKey, withoutKey] = [createKey(withDb), createKey(withoutDb)];
const stores = openSqliteStores(withDb);
for (const l of lines) await stores.ipOverrides.put(l);
const stored = (await stores.ipOverrides.list()).length;
await stores.close();

const withLines = await startProcess([...cli, "serve", "--port", "0"], env(withDb), /listening on (http:\/\/\S+)/);
const withoutLines = await startProcess(
  [...cli, "serve", "--port", "0"],
  env(withoutDb),
  /listening on (http:\/\/\S+)/,
);
const servers = [withLines, withoutLines];
const stop = async () => {
  for (const server of servers) server.proc.kill("SIGTERM");
  await Promise.all(servers.map((s) => s.proc.exited));
};

// Addresses the lines decide: each address line's own, an address in each range line.
const overridden = lines
  .filter((l) => !l.target.startsWith("AS") && !l.target.includes(":"))
  .map((l) => `/v1/ip-reputation-check?ip=${l.target.replace(/0\/24$/, "77")}`);
const probe = await fetch(`${withLines.url}${overridden[0]}&explain=1`, {
  headers: { authorization: `Bearer ${withKey}` },
});
const decided = ((await probe.json()) as { reputation: { reasons?: { override?: { target: string } } } }).reputation
  .reasons?.override?.target;
if (decided === undefined) {
  await stop();
  throw new Error(`the server with ${stored} lines did not apply them: ${overridden[0]}`);
}
console.log(`${stored} override lines stored; ${overridden[0]} decided by ${decided}`);
if (!Bun.which("wrk")) await stop();
requireWrk();

const pathsFile = writeLines(work, "overridden.txt", overridden);
const wrk = (server: typeof withLines, paths: string, key: string) => wrkWith(server, paths, key, load);
wrk(withLines, DISTINCT, withKey);
wrk(withoutLines, DISTINCT, withoutKey);
for (const [name, paths] of [
  ["ip-distinct", DISTINCT],
  ["ip-overridden", pathsFile],
] as const) {
  const a: WrkResult[] = [];
  const b: WrkResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    a.push(wrk(withoutLines, paths, withoutKey));
    b.push(wrk(withLines, paths, withKey));
  }
  const [ra, rb] = [median(a.map(rps)), median(b.map(rps))];
  const cpu = (xs: WrkResult[]) => median(xs.map((x) => x.server_cpu_us)).toFixed(1);
  console.log(
    `${name}: ${Math.round(rb)} req/s with ${stored} lines, ${Math.round(ra)} with none: ratio ${(rb / ra).toFixed(3)}; CPU µs/req ${cpu(b)} against ${cpu(a)}; p99 ${(median(b.map((x) => x.p99_us)) / 1000).toFixed(2)} ms against ${(median(a.map((x) => x.p99_us)) / 1000).toFixed(2)}; non-2xx ${[...a, ...b].reduce((n, x) => n + x.non2xx, 0)}`,
  );
}
await stop();
