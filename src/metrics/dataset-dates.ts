import type { Snapshot } from "../datasets/snapshot.ts";

/**
 * The date of the data of each source in use in a snapshot (where the data says, a package's
 * release or Last-Modified), and of each operator and curated file (its modification).
 * A source that feeds no output (a newer copy supersedes it, as a refreshed list does its
 * bundled npm copy) is still held in the version but not served, so it has no age to report.
 */
export function datasetDates(snapshot: Snapshot): Map<string, string> {
  const dates = new Map<string, string>();
  const inUse = new Set(Object.values(snapshot.outputs).flatMap((output) => output.sources));
  for (const [name, source] of Object.entries(snapshot.sources)) {
    if (source.dataDate && inUse.has(name)) dates.set(name, source.dataDate);
  }
  for (const dataset of snapshot.datasets) {
    if (dataset.date && !(dataset.name in snapshot.outputs)) dates.set(dataset.name, dataset.date);
  }
  return dates;
}
