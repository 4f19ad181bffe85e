/**
 * `bun run calibrate:locations`: does the served country agree with where the cloud providers
 * say their ranges are? Runs the default `riskcheck update` against ../shared/feeds (served on
 * 127.0.0.1) on a fresh copy of the bundled data, then, for every range AWS, Google Cloud and
 * Oracle Cloud assign to a region (each by its first usable address), compares the country of
 * the region (data/curated/cloud-regions.csv) with the city database's ("before") and with the
 * answer's ("after"), per provider and address family; lists the disagreements that remain, and
 * the share of answers whose location moved, over the providers' ranges and over random public
 * addresses. Prints Markdown: docs/location-calibration.md holds its output.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { clipSpecialPurpose } from "../src/datasets/update/clip-special-purpose.ts";
import { FORMATS, type SourceFormat } from "../src/datasets/update/formats/index.ts";
import { loadSnapshot } from "../src/datasets/load-snapshot.ts";
import { parseRegionTable, placeChecks } from "../src/datasets/cloud-region-table.ts";
import { ipFacts } from "../src/ip/answer/ip-facts.ts";
import { type ParsedIp, formatIPv4, parseIpAddress } from "../src/ip/address/parse.ts";
import { cidrsOfRange } from "../src/ip/address/address-range.ts";
import { isGlobalUnicast } from "../src/ip/address/special-purpose.ts";
import { DEFAULT_THRESHOLDS } from "../src/ip/verdict/reputation.ts";
import { ROOT, freshDataDir, serveFeeds, trialSources, writeSources } from "./real-feeds.ts";

const PROVIDERS = [
  ["aws", "AWS"],
  ["google-cloud", "Google Cloud"],
  ["oracle-cloud", "Oracle Cloud"],
] as const;

const feeds = serveFeeds();
const dir = freshDataDir();
writeSources(dir, trialSources(feeds.base).sources);
const regions = parseRegionTable(
  readFileSync(join(ROOT, "data/curated/cloud-regions.csv"), "utf8"),
  "cloud-regions.csv",
  await placeChecks(),
);

/** The range's first usable address: past the network address where the range has more than two. */
function firstUsable(first: bigint, last: bigint, version: 4 | 6): ParsedIp {
  const at = last - first > 1n ? first + 1n : first;
  return parseIpAddress(
    version === 4 ? formatIPv4(Number(at)) : cidrsOfRange({ version, first: at, last: at })[0].split("/")[0],
  )!;
}

const pct = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(2)} %` : "–");

try {
  const proc = Bun.spawn([process.execPath, join(ROOT, "src/cli/main.ts"), "update", "--data-dir", dir], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  if (code !== 0) throw new Error(`update exited ${code}:\n${out}`);
  const { snapshot, notes } = await loadSnapshot(dir, DEFAULT_THRESHOLDS);
  console.log(
    `The update's summary says:\n\n\`\`\`\n${out
      .split("\n")
      .filter((l) => /^(OUTPUT|declared-locations|aws|google-cloud|oracle-cloud) /.test(l))
      .join("\n")}\n\`\`\`\n`,
  );
  const d = snapshot.ip;

  console.log("## The served country against the provider's declared region\n");
  console.log(
    "Each range a provider assigns to a region, by its first usable address; the region's country from `data/curated/cloud-regions.csv`. Before: the city database alone (what riskcheck answered until declared locations); after: the answer.\n",
  );
  console.log(
    "| provider | family | ranges with a region | region in the table | agree before | agree after | after, counting every range whose region has no row as disagreeing | location moved | country moved |\n|---|---|---|---|---|---|---|---|---|",
  );
  const disagreements = new Map<string, number>();
  const databaseSaid = new Map<string, number>();
  const unplaced = new Map<string, number>();
  for (const [source, title] of PROVIDERS) {
    const record = snapshot.sources[source];
    const parsed = FORMATS[record.format as SourceFormat].parse(
      readFileSync(join(dir, "current", "raw", record.raw)),
      record.feeds,
    );
    const { entries } = clipSpecialPurpose(parsed.value as never);
    for (const version of [4, 6] as const) {
      let declared = 0;
      let placed = 0;
      let before = 0;
      let after = 0;
      let moved = 0;
      let otherCountry = 0;
      for (const e of entries) {
        if (e.range.version !== version || !e.regions) continue;
        declared++;
        const name = e.regions.find((n) => regions.has(n));
        if (name === undefined) {
          const country = d.geo.lookup(firstUsable(e.range.first, e.range.last, version)).geo.country_code || "none";
          const key = `${title} ${e.regions.at(-1)}, which the city database places in ${country}`;
          unplaced.set(key, (unplaced.get(key) ?? 0) + 1);
          continue;
        }
        placed++;
        const ip = firstUsable(e.range.first, e.range.last, version);
        const expected = regions.get(name)!.country_code;
        const database = d.geo.lookup(ip);
        const served = ipFacts(d, ip).located;
        if (database.geo.country_code === expected) before++;
        else {
          const key = `${title}: ${expected} answered ${database.geo.country_code || "(none)"}`;
          databaseSaid.set(key, (databaseSaid.get(key) ?? 0) + 1);
        }
        if (served.geo.country_code === expected) after++;
        else {
          const key = `${title} ${name} (${expected}) answered "${served.geo.country_code}" from ${d.locations.sourceAt(d.locations.entryOf(ip)) || d.geoSource}`;
          disagreements.set(key, (disagreements.get(key) ?? 0) + 1);
        }
        if (served.headJson !== database.headJson || served.tailJson !== database.tailJson) moved++;
        if (served.geo.country_code !== database.geo.country_code) otherCountry++;
      }
      const cells = [declared, placed].map((n) => n.toLocaleString("en"));
      if (declared)
        console.log(
          `| ${title} | IPv${version} | ${cells.join(" | ")} | ${pct(before, placed)} | ${pct(after, placed)} | ${pct(after, declared)} | ${pct(moved, placed)} | ${pct(otherCountry, placed)} |`,
        );
    }
  }

  console.log("\n## What the city database answered where it disagreed (before), the 15 most frequent\n");
  for (const [what, n] of [...databaseSaid].sort((a, b) => b[1] - a[1]).slice(0, 15))
    console.log(`- ${what}: ${n} range${n > 1 ? "s" : ""}`);
  console.log("\n## Disagreements that remain\n");
  if (disagreements.size === 0) console.log("None.");
  for (const [what, n] of [...disagreements].sort((a, b) => b[1] - a[1]))
    console.log(`- ${what}: ${n} range${n > 1 ? "s" : ""}`);
  console.log(
    "\n## Regions with no row in the table (their ranges keep the city database's location; not counted above)\n",
  );
  if (unplaced.size === 0) console.log("None.");
  for (const [what, n] of [...unplaced].sort()) console.log(`- ${what}: ${n} range${n > 1 ? "s" : ""}`);

  let seed = 20261128;
  let sampled = 0;
  let moved = 0;
  while (sampled < 200_000) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const ip = parseIpAddress(formatIPv4((seed ^ (seed << 13)) >>> 0))!;
    if (!isGlobalUnicast(ip)) continue;
    sampled++;
    const database = d.geo.lookup(ip);
    const served = ipFacts(d, ip).located;
    if (served.headJson !== database.headJson || served.tailJson !== database.tailJson) moved++;
  }
  console.log(
    `\n## Random public addresses\n\nOf ${sampled.toLocaleString("en")} random public IPv4 addresses, ${moved.toLocaleString("en")} (${pct(moved, sampled)}) are answered with another location than the city database's: those in a declared range.`,
  );
  console.log(
    `\nLoad notes: ${notes.filter((n) => n.includes("cloud regions")).join("; ") || "none about cloud regions"}`,
  );
} finally {
  feeds.stop();
}
