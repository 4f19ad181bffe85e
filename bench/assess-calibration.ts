/**
 * `bun run calibrate:assess [DATA_DIR]`: the default policy of /v1/assess on the real
 * snapshots. Without DATA_DIR it first runs the default `riskcheck update` on ../shared/feeds
 * (served on 127.0.0.1) into a fresh data directory. Prints, as Markdown, the share of each
 * decision (allow, challenge, block) the default policy takes over: the disposable domains
 * Castle saw in real abuse (every name of its 80 daily files), popular and academic domains
 * (the hand-checked rows of test/email/golden-table.ts), the addresses the reputation feeds
 * name (each range by its first address), the crawler, relay, CDN and cloud ranges, and
 * random public addresses; then which reasons the decisions stood on. docs/assess.md holds
 * its output.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { assessmentFacts } from "../src/assess/assessment-facts.ts";
import { assess } from "../src/assess/assessment.ts";
import { DEFAULT_ONLY } from "../src/assess/compiled-policy.ts";
import { DECISIONS, type Decision } from "../src/assess/policy-rule.ts";
import { Answers } from "../src/checks/answers.ts";
import { loadSnapshot } from "../src/datasets/load-snapshot.ts";
import type { EmailAnswer } from "../src/email/email-answer-schema.ts";
import { formatIPv4, parseIpAddress } from "../src/ip/address/parse.ts";
import { isGlobalUnicast } from "../src/ip/address/special-purpose.ts";
import { DEFAULT_THRESHOLDS } from "../src/ip/verdict/reputation.ts";
import { GOLDEN_TABLE } from "../test/email/golden-table.ts";
import {
  FEEDS,
  freshDataDir,
  listedAddresses,
  runUpdate,
  serveFeeds,
  trialSources,
  writeSources,
} from "./real-feeds.ts";

async function updatedDataDir(): Promise<string> {
  const feeds = serveFeeds();
  try {
    const dir = freshDataDir();
    writeSources(dir, trialSources(feeds.base).sources);
    await runUpdate(dir);
    console.log(`data dir ${dir} (default update on the real snapshots)\n`);
    return dir;
  } finally {
    feeds.stop();
  }
}

const dir = process.argv[2] ?? (await updatedDataDir());
const { snapshot } = await loadSnapshot(dir, DEFAULT_THRESHOLDS);
const answers = new Answers(snapshot, false);

type Tally = Record<Decision, number> & { n: number; codes: Map<string, number> };
const empty = (): Tally => ({ allow: 0, challenge: 0, block: 0, n: 0, codes: new Map() });

function count(t: Tally, email: string | null, ip: string | null): void {
  const e = email === null ? null : answers.email(email);
  const i = ip === null ? null : answers.ip(ip);
  if ((e && "error" in e) || (i && "error" in i)) return;
  const a = assess(DEFAULT_ONLY, assessmentFacts(snapshot, e as EmailAnswer | null, i as never, "signup"));
  t[a.decision]++;
  t.n++;
  for (const r of a.facts.reasons) t.codes.set(r.code, (t.codes.get(r.code) ?? 0) + 1);
}

const pct = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)} %` : "–");
const rows: [string, Tally][] = [];
function population(label: string, emails: Iterable<string | null>, ips: Iterable<string | null> | null = null): void {
  const t = empty();
  if (ips === null) for (const e of emails) count(t, e, null);
  else for (const ip of ips) count(t, null, ip);
  rows.push([label, t]);
}

const castleDir = join(FEEDS, "castle-disposable-email-domains/daily");
const castle = new Set<string>();
for (const day of readdirSync(castleDir))
  for (const line of readFileSync(join(castleDir, day), "utf8").split("\n")) if (line.trim()) castle.add(line.trim());
population(
  `Castle's disposable domains seen in real abuse (every name of its ${readdirSync(castleDir).length} daily files)`,
  [...castle].map((d) => `someone@${d}`),
);
const golden = (why: RegExp) => GOLDEN_TABLE.filter((row) => why.test(row[3])).map((row) => row[0]);
population("popular free-mail providers (golden table)", golden(/^free mailbox provider/));
population("company and government domains (golden table)", golden(/^a company or government domain/));
population("universities (golden table)", golden(/^a university/));

const lists = listedAddresses(snapshot, dir);
const of = (test: (name: string) => boolean) => new Set([...lists].filter(([n]) => test(n)).flatMap(([, a]) => a));
const reporting = (n: string) => snapshot.ip.feeds.reporting.has(n);
const feedsOf = (kind: string) => (n: string) => snapshot.sources[n]?.feeds === kind;
population("every address a list that reports names (ipsum, FireHOL, blocklist.de)", [], of(reporting));
for (const name of [...lists.keys()].filter(reporting)) population(`  ${name}`, [], lists.get(name)!);
population("Spamhaus DROP (each range's first address)", [], of(feedsOf("confirmed-bad")));
population(
  "Tor exits",
  [],
  of((n) => n === "tor-exits"),
);
population(
  "VPN ranges (X4BNet)",
  [],
  of((n) => n.startsWith("x4bnet-vpn")),
);
population(
  "data-centre ranges (X4BNet)",
  [],
  of((n) => n.startsWith("x4bnet-datacenter")),
);
population("verified crawlers (Google, Bing, Apple, OpenAI, Perplexity …)", [], of(feedsOf("verified-crawler")));
population("CDN edges (Cloudflare)", [], of(feedsOf("anycast")));
population("iCloud Private Relay exits", [], of(feedsOf("relay")));
const cloudRanges = readCloudRanges();
population("cloud ranges (AWS, Google Cloud, Oracle, GitHub, Fastly)", [], cloudRanges);
let seed = 20261123;
const random = new Set<string>();
while (random.size < 100_000) {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  const address = formatIPv4((seed ^ (seed << 13)) >>> 0);
  if (isGlobalUnicast(parseIpAddress(address)!)) random.add(address);
}
population("100,000 random public IPv4 addresses", [], random);

console.log(`## The default policy (${DEFAULT_ONLY.version}) on the real snapshots\n`);
console.log(`| population | values | ${DECISIONS.join(" | ")} | reasons (share of the values) |`);
console.log(`|---|---:|${DECISIONS.map(() => "---:").join("|")}|---|`);
for (const [label, t] of rows) {
  const codes = [...t.codes]
    .sort((a, b) => b[1] - a[1])
    .map(([code, n]) => `${code} ${pct(n, t.n)}`)
    .join(", ");
  console.log(
    `| ${label} | ${t.n.toLocaleString("en")} | ${DECISIONS.map((d) => pct(t[d], t.n)).join(" | ")} | ${codes || "–"} |`,
  );
}

/** One address per prefix of the cloud and CDN lists that `update` turns into hosting labels. */
function readCloudRanges(): string[] {
  const first = (cidr: string) => cidr.split("/")[0];
  const json = (path: string) => JSON.parse(readFileSync(join(FEEDS, path), "utf8"));
  const aws = json("aws/ip-ranges.json");
  const gcp = json("gcp/cloud.json");
  const oracle = json("oracle/public_ip_ranges.json");
  const github = json("github/meta.json");
  return [
    ...aws.prefixes.map((p: { ip_prefix: string }) => first(p.ip_prefix)),
    ...aws.ipv6_prefixes.map((p: { ipv6_prefix: string }) => first(p.ipv6_prefix)),
    ...gcp.prefixes.map((p: { ipv4Prefix?: string; ipv6Prefix?: string }) => first(p.ipv4Prefix ?? p.ipv6Prefix!)),
    ...oracle.regions.flatMap((r: { cidrs: { cidr: string }[] }) => r.cidrs.map((c) => first(c.cidr))),
    ...["hooks", "web", "api", "git", "actions", "pages"].flatMap((k) => (github[k] ?? []).map(first)),
  ];
}
