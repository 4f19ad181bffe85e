/**
 * The email check with DNS evidence, against a DNS server on the loopback address that this
 * script starts (never the internet):
 *
 * 1. in-process, what a cached answer adds to a check: `Answers.email` alone against
 *    `Answers.email` + `withMail` answered from the cache, over the same undecided domains; and
 *    how long a check waits for a resolver that never answers;
 * 2. over HTTP, two `riskcheck serve` on the same data, A without DNS, B with it (its cache
 *    warmed), wrk rounds alternating: server CPU µs a request on undecided domains and on the
 *    usual email pool;
 * 3. the budget: a server whose resolver never answers, and one that answers 400 ms late, each
 *    asked for never-seen domains, 32 at a time: the slowest answer against the budget.
 *
 *   bun bench/email-dns.ts [--rounds 5] [--duration 4] [--budget 150]
 *
 * Run it through the bench lock; the machine is shared: compare within one run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Answers } from "../src/checks/answers.ts";
import { loadSnapshot } from "../src/datasets/load-snapshot.ts";
import { mailServersText } from "../src/datasets/mail-servers-file.ts";
import { resolverMailDns } from "../src/dns/resolver-mail-dns.ts";
import type { EmailAnswer } from "../src/email/email-answer-schema.ts";
import { MailEvidence } from "../src/email/mail-evidence.ts";
import type { MailObservation } from "../src/email/mail-infrastructure.ts";
import { DEFAULT_THRESHOLDS } from "../src/ip/verdict/reputation.ts";
import { type NameRecords, startDnsServer } from "../test/support/dns-server.ts";
import { makeDataDir } from "../test/support/processes.ts";
import { type WrkResult, median, requireWrk, rps, startProcess, writeLines, wrk } from "./load.ts";
import { makeEmailPool } from "./pools.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    duration: { type: "string", default: "4" },
    budget: { type: "string", default: "150" },
  },
});
requireWrk();
const rounds = Number(values.rounds);
const budgetMs = Number(values.budget);
const settings = { durationSeconds: Number(values.duration), connections: 64 };

const work = mkdtempSync(join(tmpdir(), "riskcheck-email-dns-"));
const dataDir = makeDataDir();

// The version's table: 4,000 listed disposable domains spread over 400 mail servers, 10 each.
const disposable = readFileSync(join(dataDir, "current", "email", "disposable.txt"), "utf8")
  .split("\n")
  .filter((l) => l && !l.startsWith("#"))
  .slice(0, 4000);
const burnerHost = (i: number) => `mx${i % 400}.burner-bench.net`;
const burnerAddress = (i: number) => `185.100.${(i % 400) >> 8}.${i % 256}`;
const observations: MailObservation[] = disposable.map((domain, i) => ({
  domain,
  resolvedAt: 1,
  hosts: [burnerHost(i)],
  addresses: [burnerAddress(i)],
}));
writeFileSync(join(dataDir, "current", "email", "mail-servers.txt"), mailServersText(observations));

// 2,000 domains no list decides, each with its own mail server; one in ten on a burner's.
const UNDECIDED = 2000;
const undecided = (i: number) => `shop-${i}-bench.com`;
const zone = new Map<string, NameRecords>();
for (let i = 0; i < 400; i++) zone.set(burnerHost(i), { a: [burnerAddress(i)] });
for (let i = 0; i < UNDECIDED; i++) {
  const host = i % 10 === 0 ? burnerHost(i) : `mail.${undecided(i)}`;
  zone.set(undecided(i), { mx: [[10, host]] });
  if (i % 10 !== 0) zone.set(host, { a: [`91.198.${i >> 8}.${i % 256}`] });
}
const dnsServer = await startDnsServer(zone);
const silentServer = await startDnsServer(new Map(), "silent");
const lateZone = new Map<string, NameRecords>();
const lateServer = await startDnsServer(lateZone);

const undecidedEmails = Array.from({ length: 10_000 }, (_, i) => `user${i}@${undecided(i % UNDECIDED)}`);
const toPaths = (emails: string[]) => emails.map((e) => `/v1/check?email=${encodeURIComponent(e)}`);
const pools = {
  undecided: writeLines(work, "undecided.txt", toPaths(undecidedEmails)),
  email: writeLines(work, "email.txt", toPaths(makeEmailPool(dataDir, 10_000))),
};
const dnsSettings = {
  budgetMs,
  cacheSize: 100_000,
  cacheTtlMs: 3_600_000,
  negativeTtlMs: 600_000,
  inFlight: 64,
};

const servers: { proc: { kill(signal?: NodeJS.Signals): void; exited: Promise<number> } }[] = [];
try {
  // 1. In-process: the same 2,000 undecided domains, the lists alone against the lists and the cache.
  const { snapshot } = await loadSnapshot(dataDir, DEFAULT_THRESHOLDS);
  const mail = new MailEvidence(resolverMailDns([dnsServer.address]), dnsSettings);
  const plain = new Answers(snapshot, false);
  const withDns = new Answers(snapshot, false, null, mail);
  const sample = undecidedEmails.slice(0, UNDECIDED);
  // Warmed as many at a time as lookups may run, then until the lookups that outlived the budget have filled the cache.
  for (let i = 0; i < sample.length; i += dnsSettings.inFlight)
    await Promise.all(
      sample.slice(i, i + dnsSettings.inFlight).map((e) => withDns.withMail(withDns.email(e) as EmailAnswer)),
    );
  for (let waited = 0; mail.inFlight > 0 && waited < 10_000; waited += 50) await Bun.sleep(50);
  // Alternating rounds, the lists alone then with the cache, each the median of its 7.
  const rounds7: { listsOnly: number[]; cached: number[] } = { listsOnly: [], cached: [] };
  const timed = (fn: (email: string) => unknown) => {
    const started = Bun.nanoseconds();
    for (let n = 0; n < 10; n++) for (const e of sample) fn(e);
    return (Bun.nanoseconds() - started) / (10 * sample.length);
  };
  for (let r = 0; r < 7; r++) {
    rounds7.listsOnly.push(timed((e) => plain.emailJson(plain.email(e) as EmailAnswer)));
    rounds7.cached.push(
      timed((e) => {
        const a = withDns.withMail(withDns.email(e) as EmailAnswer);
        if (a instanceof Promise)
          throw new Error(`${e}: not cached after the warm-up (${JSON.stringify(mail.counts)})`);
        return withDns.emailJson(a);
      }),
    );
  }
  const listsOnly = median(rounds7.listsOnly);
  const cached = median(rounds7.cached);
  mail.close();
  // How long a check waits for a resolver that never answers, inside the process (no HTTP in the figure).
  const silent = new MailEvidence(resolverMailDns([silentServer.address]), dnsSettings);
  const silentAnswers = new Answers(snapshot, false, null, silent);
  const waits: number[] = [];
  for (let i = 0; i < 320; i += 32)
    await Promise.all(
      Array.from({ length: 32 }, async (_, k) => {
        const began = performance.now();
        await silentAnswers.withMail(silentAnswers.email(`x@silent-${i + k}.bench.net`) as EmailAnswer);
        waits.push(performance.now() - began);
      }),
    );
  silent.close();
  waits.sort((p, q) => p - q);
  console.log(
    `\n1. In-process, ${sample.length} undecided domains, median of 7 alternating runs: lists alone ${(listsOnly / 1000).toFixed(2)} µs a check, ` +
      `with DNS evidence from the cache ${(cached / 1000).toFixed(2)} µs: +${((cached - listsOnly) / 1000).toFixed(2)} µs ` +
      `(${mail.counts.decided} of ${mail.counts.cacheHits} cached answers disposable by their mail servers)`,
  );
  console.log(
    `   a resolver that never answers, budget ${budgetMs} ms, 320 never-seen domains 32 at a time: the check waited ` +
      `median ${median(waits).toFixed(1)} ms, slowest ${waits.at(-1)!.toFixed(1)} ms ` +
      `(${silent.counts.timeouts} past the budget, ${silent.counts.skipped} without room among the lookups)`,
  );

  // 2. Over HTTP, A without DNS, B with it.
  const start = async (label: string, dns: Record<string, string>) => {
    const env = {
      RISKCHECK_DATA_DIR: dataDir,
      RISKCHECK_DB: join(work, `${label}.sqlite`),
      RISKCHECK_UPDATE_EVERY: "off",
      RISKCHECK_RATE_PER_MINUTE: "1000000000",
      RISKCHECK_RATE_BURST: "1000000000",
      RISKCHECK_DNS_BUDGET_MS: String(budgetMs),
      ...dns,
    };
    const created = Bun.spawnSync([process.execPath, "src/cli/main.ts", "keys", "create", "--name", label], {
      env: { ...process.env, ...env },
    });
    const key = created.stdout.toString().trim().split("\n").at(-1)!;
    if (!key.startsWith("rk_")) throw new Error(`${label}: keys create failed: ${created.stderr.toString()}`);
    const server = await startProcess(
      [process.execPath, "src/cli/main.ts", "serve", "--port", "0"],
      env,
      /listening on (http:\/\/\S+)/,
    );
    servers.push(server);
    return { label, key, server };
  };
  const a = await start("a", {});
  const b = await start("b", { RISKCHECK_DNS_RESOLVER: dnsServer.address });
  // B's cache warmed as the in-process one, every undecided domain looked up (32 at a time), then wrk's warm-up rounds.
  const ask = (server: { url: string }, key: string, domain: string) =>
    fetch(`${server.url}/v1/check?email=x@${domain}&explain=1`, { headers: { authorization: `Bearer ${key}` } });
  for (let i = 0; i < UNDECIDED; i += 32)
    await Promise.all(
      Array.from({ length: Math.min(32, UNDECIDED - i) }, (_, k) => ask(b.server, b.key, undecided(i + k))),
    );
  await Bun.sleep(2500);
  for (const side of [a, b]) for (const pool of Object.values(pools)) wrk(side.server, pool, side.key, settings);
  for (let i = 0; i < UNDECIDED; i += 97) {
    const probe = await ask(b.server, b.key, undecided(i));
    const lookup = ((await probe.json()) as { reasons: { mail: { lookup: string } } }).reasons.mail.lookup;
    if (lookup !== "cached") throw new Error(`B's cache is not warm: ${undecided(i)} ${lookup}`);
  }
  const results: Record<string, { a: WrkResult[]; b: WrkResult[] }> = {};
  for (const [name, pool] of Object.entries(pools)) {
    results[name] = { a: [], b: [] };
    for (let round = 0; round < rounds; round++)
      for (const side of round % 2 === 0 ? [a, b] : [b, a])
        results[name][side.label as "a" | "b"].push(wrk(side.server, pool, side.key, settings));
  }
  console.log(
    `\n2. Over HTTP, ${rounds} rounds × ${settings.durationSeconds}s a side, 64 connections, wrk -t1, medians`,
  );
  console.table(
    Object.entries(results).map(([scenario, r]) => {
      const cpu = (xs: WrkResult[]) => median(xs.map((x) => x.server_cpu_us));
      return {
        scenario,
        "A (no DNS) req/s": Math.round(median(r.a.map(rps))),
        "B (DNS, cached) req/s": Math.round(median(r.b.map(rps))),
        "B / A": (median(r.b.map(rps)) / median(r.a.map(rps))).toFixed(2),
        "A CPU µs/req": cpu(r.a).toFixed(1),
        "B CPU µs/req": cpu(r.b).toFixed(1),
        "B − A µs": (cpu(r.b) - cpu(r.a)).toFixed(1),
        "non-2xx": [...r.a, ...r.b].reduce((n, x) => n + x.non2xx + x.errors, 0),
      };
    }),
  );

  // 3. The budget: never-seen domains, 32 at a time, against a resolver that never answers and one 400 ms late.
  for (const [label, address] of [
    ["never answers", silentServer.address],
    ["answers 400 ms late", lateServer.address],
  ] as const) {
    for (let i = 0; i < 320; i++)
      lateZone.set(`late-${i}.bench.net`, { mx: [[10, "mx.late.bench.net"]], delayMs: 400 });
    const side = await start(label === "never answers" ? "silent" : "late", { RISKCHECK_DNS_RESOLVER: address });
    const ask = async (domain: string) => {
      const started = performance.now();
      const response = await fetch(`${side.server.url}/v1/check?email=x@${domain}&explain=1`, {
        headers: { authorization: `Bearer ${side.key}` },
      });
      const body = (await response.json()) as { reasons: { mail: { lookup: string } } };
      return { ms: performance.now() - started, lookup: body.reasons.mail.lookup };
    };
    const wave = async (domains: string[]) => {
      const out: { ms: number; lookup: string }[] = [];
      for (let i = 0; i < domains.length; i += 32) out.push(...(await Promise.all(domains.slice(i, i + 32).map(ask))));
      return out;
    };
    const domains = Array.from({ length: 320 }, (_, i) => `late-${i}.bench.net`);
    const first = await wave(domains);
    await Bun.sleep(1500);
    const again = await wave(domains);
    const describe = (xs: { ms: number; lookup: string }[]) => {
      const ms = xs.map((x) => x.ms).sort((p, q) => p - q);
      const lookups = [...new Set(xs.map((x) => x.lookup))].join("/");
      const p99 = ms[Math.floor(ms.length * 0.99)];
      return `median ${median(ms).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, slowest ${ms.at(-1)!.toFixed(1)} ms (${lookups})`;
    };
    console.log(
      `\n3. Resolver that ${label}, budget ${budgetMs} ms, 320 never-seen domains 32 at a time, client-side latency:`,
    );
    console.log(`   first ask: ${describe(first)}`);
    console.log(`   the same domains 1.5 s later: ${describe(again)}`);
  }
} finally {
  for (const s of servers) s.proc.kill("SIGTERM");
  await Promise.all(servers.map((s) => s.proc.exited));
  await Promise.all([dnsServer.stop(), silentServer.stop(), lateServer.stop()]);
  rmSync(work, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}
