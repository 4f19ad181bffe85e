/**
 * `bun run trial:update`: one full default `riskcheck update` on the real feed snapshots
 * (../shared/feeds served on 127.0.0.1), on a fresh copy of the bundled data, then the
 * failure cases of the update-integrity rules on the same real data. Prints the CLI's
 * own tables with wall time and peak RSS of each run.
 */
import { join } from "node:path";
import { ROOT, freshDataDir, serveFeeds, trialSources, writeSources } from "./real-feeds.ts";

const feeds = serveFeeds();
const dir = freshDataDir();
const { sources, leftOut } = trialSources(feeds.base);
const sourcesFile = writeSources(dir, sources);
console.log(`data dir ${dir}; ${sources.length} sources; left out (no snapshot): ${leftOut.join(", ")}\n`);

/** Runs the CLI as a child, so this process keeps serving the feeds meanwhile. */
async function run(title: string, ...args: string[]): Promise<string> {
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, join(ROOT, "src/cli/main.ts"), "update", "--data-dir", dir, ...args], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const rss = Math.round((proc.resourceUsage()?.maxRSS ?? 0) / 1024 / 1024);
  console.log(`=== ${title}: exit ${code}, ${seconds} s, peak RSS ${rss} MB`);
  const out = `${stdout}${stderr}`;
  console.log(out);
  return out;
}

try {
  await run("full default update");
  const report = Bun.spawn([process.execPath, join(ROOT, "bench/email-report.ts"), dir], {
    stdout: "pipe",
    stderr: "inherit",
  });
  console.log(`=== the email lists after the update\n${await new Response(report.stdout).text()}`);
  await run("again, nothing changed");
  const html = sources.map((s) =>
    (s as { name: string }).name === "disposable-domains" ? { ...s, url: `${feeds.base}/no-such-list.conf` } : s,
  );
  writeSources(dir, html);
  await run("disposable-domains answers 404");
  writeSources(
    dir,
    sources.filter((s) => (s as { name: string }).name !== "ipsum"),
  );
  await run("a sources file without ipsum");
  writeSources(dir, sources);
  await run("--force", "--force");
  await run("rollback", "--rollback");
  await run("rollback", "--rollback");
  await run("versions", "--list");
} finally {
  feeds.stop();
  console.log(`sources file ${sourcesFile}`);
}
