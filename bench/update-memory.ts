/**
 * `bun bench/update-memory.ts [--geofeed N] [--list N] [--no-snapshots] [--runs R]`: the peak
 * RSS of one full `riskcheck update` (a fresh data directory each run) on the real feed
 * snapshots (../shared/feeds, as `trial:update` serves them) plus synthetic sources that
 * stand for what a snapshot lacks or what an operator may add:
 *
 * - `--geofeed N` (default 300,000): the icloud-private-relay source as Apple's real file
 *   is, an RFC 8805 geofeed with places (2022: 284k lines; 2025: ~300k), 60 % IPv4 /28
 *   rows, 40 % IPv6 /64 rows, neighbouring rows often sharing a place, ~2,000 places;
 * - `--list N` (default 0): N more single IPv4 addresses, in address lists of 500,000.
 *
 * Prints the entries per IP source, the outcome of the synthetic ones and the peak RSS
 * of each run (measured by test/support/peak-rss.ts, a process of its own).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ROOT, freshDataDir, serveFeeds, trialSources, writeSources } from "./real-feeds.ts";
import { syntheticAddressList, syntheticGeofeed } from "./update-memory-data.ts";

const { values: args } = parseArgs({
  options: {
    geofeed: { type: "string", default: "300000" },
    list: { type: "string", default: "0" },
    "no-snapshots": { type: "boolean", default: false },
    runs: { type: "string", default: "1" },
  },
});
const geofeedRows = Number(args.geofeed);
const listEntries = Number(args.list);

const feeds = serveFeeds();
try {
  const runs = Number(args.runs);
  for (let run = 0; run < runs; run++) {
    const dir = freshDataDir();
    const base = args["no-snapshots"]
      ? (JSON.parse(readFileSync(join(ROOT, "data/sources.json"), "utf8")).sources as { url: string }[]).filter((s) =>
          s.url.startsWith("npm:"),
        )
      : trialSources(feeds.base).sources;
    const sources = base.filter((s) => (s as { name: string }).name !== "icloud-private-relay");
    if (geofeedRows > 0) {
      writeFileSync(join(dir, "geofeed.csv"), syntheticGeofeed(geofeedRows));
      sources.push({
        name: "icloud-private-relay",
        url: `file://${join(dir, "geofeed.csv")}`,
        format: "geofeed-csv",
        feeds: "relay",
        class: "relay:icloud",
        licence: "synthetic",
      });
    }
    // Lists of at most 500,000 addresses each (6.5 MB), under an address list's 8 MB ceiling.
    for (let from = 0, part = 1; from < listEntries; from += 500_000, part++) {
      const file = join(dir, `dense-${part}.txt`);
      writeFileSync(file, syntheticAddressList(Math.min(500_000, listEntries - from), from));
      sources.push({
        name: `synthetic-list-${part}`,
        url: `file://${file}`,
        format: "address-list",
        feeds: "attack",
        licence: "synthetic",
      });
    }
    writeSources(dir, sources);
    const peakFile = join(dir, "peak-rss");
    const started = performance.now();
    const child = Bun.spawn(
      [
        process.execPath,
        join(ROOT, "test/support/peak-rss.ts"),
        peakFile,
        process.execPath,
        join(ROOT, "src/cli/main.ts"),
        "update",
        "--json",
        "--data-dir",
        dir,
      ],
      { stdout: "pipe", stderr: "ignore" },
    );
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const report = JSON.parse(stdout) as {
      outcomes: { name: string; outcome: string; entries?: number; detail: string }[];
      version: string | null;
      refused: string[];
    };
    const ipNames = new Set(
      sources
        .filter((s) => !["mmdb", "asn-csv", "asn-list", "domain-list"].includes((s as { format: string }).format))
        .map((s) => (s as { name: string }).name),
    );
    const ip = report.outcomes.filter((o) => ipNames.has(o.name));
    const total = ip.reduce((sum, o) => sum + (o.entries ?? 0), 0);
    if (run === 0) {
      for (const o of ip)
        console.log(
          `${o.name.padEnd(32)} ${o.outcome.padEnd(8)} ${String(o.entries ?? "").padStart(8)}  ${o.outcome === "failed" ? o.detail : ""}`,
        );
    }
    const peak = Math.round(Number(readFileSync(peakFile, "utf8")) / 1_048_576);
    console.log(
      `run ${run + 1}: exit ${code}, ${seconds} s, IP-list entries ${total}, version ${report.version ?? "none"}${report.refused.length ? ` refused: ${report.refused.join("; ")}` : ""}, peak RSS ${peak} MB`,
    );
  }
} finally {
  feeds.stop();
}
