/**
 * `bun run calibrate`: the reputation model on the real feed snapshots. Runs the default
 * `riskcheck update` against ../shared/feeds (served on 127.0.0.1) on a fresh copy of the
 * bundled data, then prints, as Markdown, the levels served: over every listed address,
 * per ipsum count, per source, over random public addresses and for a known-benign set;
 * how much double counting the aggregation removes; and what a Googlebot address and a
 * public resolver planted into ipsum and blocklist.de get. docs/reputation-calibration.md holds its output.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadSnapshot } from "../src/datasets/load-snapshot.ts";
import type { Snapshot } from "../src/datasets/snapshot.ts";
import { ipFacts } from "../src/ip/answer/ip-facts.ts";
import { formatIPv4, parseIpAddress } from "../src/ip/address/parse.ts";
import { DEFAULT_THRESHOLDS } from "../src/ip/verdict/reputation.ts";
import { LEVELS, type Level } from "../src/ip/verdict/reputation-schema.ts";
import { isGlobalUnicast } from "../src/ip/address/special-purpose.ts";
import {
  FEEDS,
  freshDataDir,
  listedAddresses,
  runUpdate,
  serveFeeds,
  trialSources,
  writeSources,
} from "./real-feeds.ts";

const overrides = new Map<string, string>();
const feeds = serveFeeds(overrides);
const dir = freshDataDir();
writeSources(dir, trialSources(feeds.base).sources);

const update = () => runUpdate(dir);

function levelOf(snapshot: Snapshot, address: string): { level: Level; kind: readonly string[]; sum: number } {
  const ip = parseIpAddress(address)!;
  if (!isGlobalUnicast(ip)) return { level: "ok", kind: [], sum: 0 };
  const r = ipFacts(snapshot.ip, ip).reputation;
  return { level: r.reputation, kind: r.kind, sum: r.sum };
}

type Tally = Record<Level, number> & { n: number };
const tally = (snapshot: Snapshot, addresses: Iterable<string>): Tally => {
  const t = { bad: 0, warning: 0, suspicious: 0, informative: 0, ok: 0, n: 0 };
  for (const a of addresses) {
    t[levelOf(snapshot, a).level]++;
    t.n++;
  }
  return t;
};
const pct = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)} %` : "–");
const row = (label: string, t: Tally) =>
  `| ${label} | ${t.n.toLocaleString("en")} | ${LEVELS.map((l) => pct(t[l], t.n)).join(" | ")} |`;
const header = (first: string) =>
  `| ${first} | addresses | ${LEVELS.join(" | ")} |\n|---|---|${LEVELS.map(() => "---").join("|")}|`;

try {
  await update();
  const { snapshot } = await loadSnapshot(dir, DEFAULT_THRESHOLDS);
  const lists = listedAddresses(snapshot, dir);
  const counterLists = [...lists.keys()].filter((n) => snapshot.ip.feeds.reporting.has(n));
  const all = new Set([...lists.values()].flat());
  const reported = new Set(counterLists.flatMap((n) => lists.get(n)!));

  console.log(`## Levels served after the default update on the real snapshots\n\n${header("which addresses")}`);
  console.log(row("every address a list names (a range by its first address)", tally(snapshot, all)));
  console.log(row("every address a list that reports names", tally(snapshot, reported)));
  let seed = 20261123;
  const random = new Set<string>();
  while (random.size < 100_000) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const address = formatIPv4((seed ^ (seed << 13)) >>> 0);
    if (isGlobalUnicast(parseIpAddress(address)!)) random.add(address);
  }
  console.log(row("100,000 random public IPv4 addresses", tally(snapshot, random)));

  const ipsum = new Map<number, string[]>();
  for (const line of readFileSync(join(FEEDS, "ipsum/ipsum.txt"), "utf8").split("\n")) {
    const [address, n] = line.split("\t");
    if (!line.startsWith("#") && n) ipsum.set(Number(n), [...(ipsum.get(Number(n)) ?? []), address]);
  }
  console.log(`\n## Per ipsum count (the number of lists ipsum found the address on)\n\n${header("ipsum count")}`);
  for (const [n, addresses] of [...ipsum].sort((a, b) => a[0] - b[0]))
    console.log(row(String(n), tally(snapshot, addresses)));

  console.log(`\n## Per source (each range by its first address)\n\n${header("source")}`);
  for (const [name, addresses] of lists)
    console.log(row(`${name} (${snapshot.sources[name].feeds})`, tally(snapshot, addresses)));

  console.log("\n## Independent reports against the plain sum of every listing\n");
  console.log(
    "| addresses | plain sum of listings, mean | independent reports, mean | largest gap |\n|---|---|---|---|",
  );
  const onBlocklistDe = new Set(counterLists.filter((n) => n.startsWith("blocklist-de")).flatMap((n) => lists.get(n)!));
  const listedIn = new Map<string, { source: string; count: number }[]>();
  for (const name of counterLists) {
    const index = snapshot.ip.evidence.get(name)!;
    for (const address of lists.get(name)!) {
      const evidence = index.lookup(parseIpAddress(address)!);
      if (evidence)
        listedIn.set(address, [
          ...(listedIn.get(address) ?? []),
          { source: name, count: evidence.count * (snapshot.ip.feeds.reporting.get(name)?.weight ?? 1) },
        ]);
    }
  }
  for (const [label, set] of [
    ["on a blocklist.de list", onBlocklistDe],
    ["on any list that reports", reported],
  ] as const) {
    let plain = 0;
    let independent = 0;
    let gap = 0;
    for (const address of set) {
      const p = (listedIn.get(address) ?? []).reduce((s, l) => s + l.count, 0);
      const i = levelOf(snapshot, address).sum;
      plain += p;
      independent += i;
      gap = Math.max(gap, p - i);
    }
    console.log(
      `| ${label} (${set.size.toLocaleString("en")}) | ${(plain / set.size).toFixed(2)} | ${(independent / set.size).toFixed(2)} | ${gap} |`,
    );
  }

  const benign: [string, string][] = [
    ["8.8.8.8", "Google Public DNS"],
    ["8.8.4.4", "Google Public DNS"],
    ["1.1.1.1", "Cloudflare DNS"],
    ["1.0.0.1", "Cloudflare DNS"],
    ["9.9.9.9", "Quad9"],
    ["149.112.112.112", "Quad9"],
    ["208.67.222.222", "OpenDNS"],
    ["94.140.14.14", "AdGuard DNS"],
    ["2001:4860:4860::8888", "Google Public DNS"],
    ["2606:4700:4700::1111", "Cloudflare DNS"],
    ["104.16.132.229", "Cloudflare edge"],
    ["172.67.1.1", "Cloudflare edge"],
    ["151.101.1.69", "Fastly edge"],
    ["198.41.0.4", "a.root-servers.net"],
    ["66.249.66.1", "Googlebot"],
    ["66.249.79.1", "Googlebot"],
    ["2001:4860:4801:10::1", "Googlebot IPv6"],
    ["157.55.39.1", "Bingbot"],
    ["40.77.167.1", "Bingbot"],
  ];
  const benignRows = (snap: Snapshot) =>
    benign.map(([address, what]) => {
      const v = levelOf(snap, address);
      return `| ${address} | ${what} | ${v.level} | ${v.sum} | ${v.kind.join(", ") || "–"} |`;
    });
  console.log(
    `\n## Known benign addresses: none may be risky\n\n| address | what | level | reports | kind |\n|---|---|---|---|---|\n${benignRows(snapshot).join("\n")}`,
  );
  const risky = benign.filter(([a]) => ["bad", "warning"].includes(levelOf(snapshot, a).level));
  console.log(`\nRisky among them: ${risky.length}.`);

  // Plant a Googlebot address and a public resolver into ipsum (9 lists) and blocklist.de ssh.
  overrides.set(
    "ipsum/ipsum.txt",
    `${readFileSync(join(FEEDS, "ipsum/ipsum.txt"), "utf8")}66.249.66.1\t9\n8.8.8.8\t9\n`,
  );
  overrides.set(
    "blocklist-de-ssh/blocklist_de_ssh.ipset",
    `${readFileSync(join(FEEDS, "blocklist-de-ssh/blocklist_de_ssh.ipset"), "utf8")}66.249.66.1\n8.8.8.8\n`,
  );
  await update();
  const planted = (await loadSnapshot(dir, DEFAULT_THRESHOLDS)).snapshot;
  console.log(
    "\n## Planted into ipsum (9 lists) and blocklist.de ssh, then updated\n\n| address | what | level | reports | kind |\n|---|---|---|---|---|",
  );
  console.log(
    benignRows(planted)
      .filter((r) => r.startsWith("| 66.249.66.1 ") || r.startsWith("| 8.8.8.8 "))
      .join("\n"),
  );
} finally {
  feeds.stop();
}
