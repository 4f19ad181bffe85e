import { existsSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { DEFAULT_EVIDENCE_RULE } from "../../email/evidence-rule.ts";
import { BUILD_INFO, type BuildInfo } from "../../runtime/build-info.ts";
import type { Thresholds } from "../../ip/verdict/reputation.ts";
import { dataDirKind, hasDatasetVersion, notADataDirectory } from "../data-dir-kind.ts";
import { dataFiles } from "../data-layout.ts";
import { linkOrCopy, writeFileAtomically } from "../staged-files.ts";
import type { UpdateReport } from "../update/update.ts";
import { activateVersion, withUpdateLock } from "../versions.ts";
import { type Baseline, checkoutBaselineHere, decompressed, embeddedSeed, embeddedVersionFiles } from "./baseline.ts";

export interface BaselineOptions {
  readonly thresholds: Thresholds;
  readonly keepVersions: number;
  readonly env: Record<string, string | undefined>;
}

/** Each seed file the data directory lacks, and their paths; an operator's edited copy stays. */
function writeSeedFiles(dataDir: string, seed: ReadonlyMap<string, Uint8Array | string>): string[] {
  const written: string[] = [];
  for (const [path, content] of seed) {
    const target = join(dataDir, path);
    if (existsSync(target)) continue;
    writeFileAtomically(target, content);
    written.push(path);
  }
  return written;
}

/**
 * The postinstall's step, which build.ts also runs to make the version the binary carries:
 * the seed files a data directory lacks, then a dataset version from the `npm:` sources of
 * its sources.json, through the same update as `riskcheck update` (tag "bundled").
 */
export async function installBaseline(
  dataDir: string,
  baseline: Baseline,
  options: BaselineOptions,
): Promise<UpdateReport> {
  // Imported here, not above: every `serve` imports this file, and only a data directory without a version needs the update.
  const [{ parseSources }, { runUpdate }] = await Promise.all([
    import("../update/sources.ts"),
    import("../update/update.ts"),
  ]);
  writeSeedFiles(dataDir, baseline.seed);
  const sourcesFile = dataFiles(dataDir).sources;
  const bundled = parseSources(await Bun.file(sourcesFile).text(), sourcesFile).filter((s) => s.url.startsWith("npm:"));
  return runUpdate({
    dataDir,
    only: bundled.map((s) => s.name),
    force: false,
    maxShrink: 0.5,
    keepVersions: options.keepVersions,
    thresholds: options.thresholds,
    env: options.env,
    progress: () => () => {},
    packages: baseline.packages,
    // As the baseline is shipped: a `serve` under another rule makes its own served lists at its first start.
    emailRule: DEFAULT_EVIDENCE_RULE,
    tag: "bundled",
  });
}

/**
 * The binary's first start: its dataset version written out, a file at a time as it
 * decompresses, and made current (history and rollback as any).
 */
async function installEmbedded(
  dataDir: string,
  embedded: ReadonlyMap<string, Blob>,
  info: BuildInfo,
  keepVersions: number,
): Promise<void> {
  const files = dataFiles(dataDir);
  await withUpdateLock(dataDir, async () => {
    const staging = join(files.versions, `.staging-${info.version}`);
    try {
      for (const [path, file] of embedded) await Bun.write(join(staging, path), decompressed(file));
      for (const [path, stored] of Object.entries(info.links)) linkOrCopy(join(staging, stored), join(staging, path));
      renameSync(staging, join(files.versions, info.version));
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
    await activateVersion(dataDir, info.version, keepVersions);
  });
}

/**
 * Before a command that reads datasets: a missing or empty data directory (or one with a
 * database and no dataset version yet) gets the shipped baseline, said in one line; a
 * directory riskcheck did not make is refused. The binary also writes each seed file a data
 * directory lacks (a curated list a newer release brings). Bun running the sources without
 * node_modules has nothing to write: the usual errors then name what is missing.
 */
export async function ensureDatasets(
  dataDir: string,
  options: BaselineOptions,
  say: (line: string) => void,
): Promise<void> {
  const kind = dataDirKind(dataDir);
  if (kind === "foreign") throw new Error(notADataDirectory(resolve(dataDir)));
  const seed = embeddedSeed();
  const written = seed ? writeSeedFiles(dataDir, seed) : [];
  if (kind === "riskcheck" && hasDatasetVersion(dataDir)) {
    if (written.length)
      say(`${resolve(dataDir)} lacked ${written.join(", ")}: wrote them as this riskcheck ships them`);
    return;
  }
  const started = performance.now();
  const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
  const embedded = embeddedVersionFiles();
  if (embedded && BUILD_INFO) {
    await installEmbedded(dataDir, embedded, BUILD_INFO, options.keepVersions);
    say(
      `${resolve(dataDir)} had no datasets: wrote the data built into this binary (of ${BUILD_INFO.dataDate}) as ` +
        `dataset version ${BUILD_INFO.version} in ${seconds()} s; "riskcheck update" brings it up to date`,
    );
    return;
  }
  const checkout = checkoutBaselineHere();
  if (!checkout) return;
  const report = await installBaseline(dataDir, checkout, options);
  if (report.version === null) {
    const problems = report.refused.length
      ? report.refused
      : report.outcomes.filter((o) => o.outcome !== "updated").map((o) => `${o.name}: ${o.detail}`);
    throw new Error(
      `${resolve(dataDir)}: the bundled data could not be written (${problems.join("; ") || "no bundled source in its sources.json"})`,
    );
  }
  say(
    `${resolve(dataDir)} had no datasets: wrote the bundled data (${checkout.packages.where}) as dataset version ` +
      `${report.version} in ${seconds()} s; "riskcheck update" brings it up to date`,
  );
}
