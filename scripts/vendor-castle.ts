/**
 * `bun scripts/vendor-castle.ts [DAILY_DIR]`: writes vendor/castle-disposable-email-domains/,
 * the bundled copy of Castle's list (a local npm package, `file:` in package.json): the last
 * daily snapshot as Castle publishes it, and `history.txt`, every domain any daily snapshot
 * listed. Castle's file is a rolling top 1,000, so one day's file holds only that day's most
 * abused names; the history is what a server that had updated every day would remember.
 * DAILY_DIR defaults to the Castle folder of the feed snapshots (bench/real-feeds.ts: FEEDS;
 * one YYYY-MM-DD.txt a day).
 */
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { FEEDS, ROOT } from "../bench/real-feeds.ts";

const daily = resolve(process.argv[2] ?? join(FEEDS, "castle-disposable-email-domains/daily"));
const out = join(ROOT, "vendor/castle-disposable-email-domains");
const days = readdirSync(daily)
  .filter((f) => /^\d{4}-\d{2}-\d{2}\.txt$/.test(f))
  .sort();
if (days.length === 0) throw new Error(`${daily}: no YYYY-MM-DD.txt snapshots`);
const names = (day: string) =>
  readFileSync(join(daily, day), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
const lastListed = new Map<string, string>();
for (const day of days) for (const name of names(day)) lastListed.set(name, day.slice(0, 10));
const first = days[0].slice(0, 10);
const last = days.at(-1)!.slice(0, 10);
const header = [
  `# Every domain castle/disposable-email-domains listed in its daily file from ${first} to ${last}`,
  `# (${days.length} daily snapshots, ${lastListed.size} domains), MIT (LICENSE). Written by scripts/vendor-castle.ts.`,
];
const sorted = [...lastListed.keys()].sort();
writeFileSync(join(out, "history.txt"), `${[...header, ...sorted].join("\n")}\n`);
writeFileSync(join(out, "disposable-email-domains.txt"), `${names(days.at(-1)!).join("\n")}\n`);
const version = last.split("-").map(Number).join(".");
const manifest = {
  name: "castle-disposable-email-domains",
  version,
  private: true,
  description: `castle/disposable-email-domains as of ${last}, with every domain its daily file listed since ${first}`,
  license: "MIT",
  files: ["LICENSE", "README.md", "history.txt", "disposable-email-domains.txt"],
};
writeFileSync(join(out, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`${out}: ${lastListed.size} domains over ${days.length} days (${first} … ${last}), version ${version}`);
