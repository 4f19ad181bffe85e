import { existsSync, readdirSync, statSync } from "node:fs";
import { dataFiles } from "./data-layout.ts";

/** Files only riskcheck puts in a data directory: one of them makes a directory riskcheck's. */
const MARKERS = ["sources.json", "datasets", "current", "riskcheck.sqlite"];

/** What a --data-dir path is: not there, an empty directory, one riskcheck made, or anything else (/etc, a file). */
export function dataDirKind(dir: string): "missing" | "empty" | "riskcheck" | "foreign" {
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (!stat) return "missing";
  if (!stat.isDirectory()) return "foreign";
  const names = readdirSync(dir);
  if (names.length === 0) return "empty";
  return names.some((name) => MARKERS.includes(name)) ? "riskcheck" : "foreign";
}

/** Whether a data directory holds a dataset version (current, or any under datasets/). */
export function hasDatasetVersion(dir: string): boolean {
  const files = dataFiles(dir);
  if (existsSync(files.current)) return true;
  return existsSync(files.versions) && readdirSync(files.versions).some((name) => !name.startsWith("."));
}

/** Why a command refuses a directory that is not a data directory, and how to make one. */
export function notADataDirectory(dir: string): string {
  return (
    `${dir} is not a riskcheck data directory (it has none of ${MARKERS.join(", ")}); nothing was written there. ` +
    `Give --data-dir (or RISKCHECK_DATA_DIR) a new or empty directory: riskcheck fills it with its bundled data, ` +
    `e.g. riskcheck serve --data-dir /var/lib/riskcheck`
  );
}
