/**
 * `riskcheck update` with DNS evidence on, on the real feed snapshots (../shared/feeds served on
 * 127.0.0.1, as `bun run trial:update`), against a DNS server on the loopback address that this
 * script starts: never the internet. The zone is constructed, not recorded (these machines have
 * no internet, and the snapshots hold no DNS records): every name gets an MX on one of 200
 * made-up mail servers. So the figures are the update's bounds, times and table sizes on the real
 * lists, and which domains it picks first; not what DNS evidence catches in the world.
 *
 * 1. a default update without a resolver (the baseline);
 * 2. the same data with RISKCHECK_DNS_RESOLVER set: the defaults (5,000 domains, 3 min);
 * 3. again, every DNS answer `--delay` ms late (a recursive resolver's cold answers), with
 *    RISKCHECK_DNS_UPDATE_TIME=20s: the time bound;
 * 4. in-process, the table compiled from the version's file, and from 100,000 observations (the cap).
 *
 *   bun bench/update-dns.ts [--delay 400]
 *
 * Run it through the bench lock; the machine is shared.
 */
import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { mailServersText, parseMailServersFile } from "../src/datasets/mail-servers-file.ts";
import { versionFiles } from "../src/datasets/data-layout.ts";
import { MAX_OBSERVED } from "../src/datasets/update/mail-servers.ts";
import { type MailObservation, mailInfrastructure } from "../src/email/mail-infrastructure.ts";
import { type NameRecords, startDnsServer } from "../test/support/dns-server.ts";
import { FEEDS, freshDataDir, runUpdate, serveFeeds, trialSources, writeSources } from "./real-feeds.ts";

const { values } = parseArgs({ options: { delay: { type: "string", default: "400" } } });

const SERVERS = 200;
const serverOf = (name: string) => `mx${Bun.hash.crc32(name) % SERVERS}.pool-bench.net`;
const addressOf = (i: number) => `185.100.${80 + (i >> 8)}.${i % 256}`;

/** Every name an MX on one of the made-up servers; each server an address. */
class ConstructedZone extends Map<string, NameRecords> {
  delayMs = 0;
  override get(name: string): NameRecords {
    const server = /^mx(\d+)\.pool-bench\.net$/.exec(name);
    if (server) return { a: [addressOf(Number(server[1]))], delayMs: this.delayMs };
    return { mx: [[10, serverOf(name)]], delayMs: this.delayMs };
  }
}

const feeds = serveFeeds();
const zone = new ConstructedZone();
const dns = await startDnsServer(zone);
const dir = freshDataDir();
const { sources } = trialSources(feeds.base);
writeSources(dir, sources);
const castleNow = new Set(
  readFileSync(join(FEEDS, "castle-disposable-email-domains/disposable-email-domains.txt"), "utf8")
    .split("\n")
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l && !l.startsWith("#")),
);

async function update(title: string, env: Record<string, string>, ...args: string[]) {
  const before = dns.queries.length;
  const started = performance.now();
  const out = await runUpdate(dir, env, ...args);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const mxAsked = dns.queries.slice(before).filter((q) => q.startsWith("MX "));
  const castleAsked = mxAsked.filter((q) => castleNow.has(q.slice(3))).length;
  console.log(`\n=== ${title}: ${seconds} s wall`);
  for (const line of out.split("\n"))
    if (/^(Mail servers|Dataset version|Nothing changed)/.test(line)) console.log(`  ${line}`);
  if (mxAsked.length > 0)
    console.log(
      `  DNS: ${mxAsked.length} MX questions, ${castleAsked} of them for names in Castle's current file (${castleNow.size})`,
    );
}

try {
  await update("1. default update, no resolver", {});
  await update("2. DNS evidence on, defaults (5,000 domains, 3 min), answers at once", {
    RISKCHECK_DNS_RESOLVER: dns.address,
  });
  zone.delayMs = Number(values.delay);
  await update(
    `3. DNS evidence on, every answer ${zone.delayMs} ms late, RISKCHECK_DNS_UPDATE_TIME=20s, --force`,
    { RISKCHECK_DNS_RESOLVER: dns.address, RISKCHECK_DNS_UPDATE_TIME: "20s" },
    "--force",
  );

  const file = versionFiles(join(dir, "current")).mailServers;
  const text = readFileSync(file, "utf8");
  const time = <T>(fn: () => T): [T, number] => {
    const started = performance.now();
    const value = fn();
    return [value, performance.now() - started];
  };
  const [observed, parseMs] = time(() => parseMailServersFile(text));
  const [table, compileMs] = time(() => mailInfrastructure(observed, () => null));
  console.log(
    `\n4. The version's mail-servers.txt: ${observed.length} domains, ${Math.round(statSync(file).size / 1024)} KiB; ` +
      `parsed in ${parseMs.toFixed(1)} ms, table (${table.hosts.size} hosts, ${table.addresses.size} addresses) ` +
      `in ${compileMs.toFixed(1)} ms`,
  );
  const cap: MailObservation[] = Array.from({ length: MAX_OBSERVED }, (_, i) => ({
    domain: `d${i}.cap-bench.net`,
    resolvedAt: 1,
    hosts: [`mx${i % 2000}.pool-bench.net`],
    addresses: [addressOf(i % 2000)],
  }));
  const capText = mailServersText(cap);
  const [capObserved, capParseMs] = time(() => parseMailServersFile(capText));
  const [, capCompileMs] = time(() => mailInfrastructure(capObserved, () => null));
  console.log(
    `   at the cap, ${MAX_OBSERVED} domains over 2,000 servers, ${Math.round(capText.length / 1024)} KiB: ` +
      `parsed in ${capParseMs.toFixed(1)} ms, table in ${capCompileMs.toFixed(1)} ms`,
  );
} finally {
  feeds.stop();
  await dns.stop();
  rmSync(dir, { recursive: true, force: true });
}
