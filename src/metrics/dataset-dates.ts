import type { Snapshot } from "../datasets/snapshot.ts";

/**
 * The date of the data of each source in a snapshot (where the data says, a package's
 * release or Last-Modified), and of each operator and curated file (its modification).
 */
export function datasetDates(snapshot: Snapshot): Map<string, string> {
  const dates = new Map<string, string>();
  for (const [name, source] of Object.entries(snapshot.sources)) {
    if (source.dataDate) dates.set(name, source.dataDate);
  }
  for (const dataset of snapshot.datasets) {
    if (dataset.date && !(dataset.name in snapshot.outputs)) dates.set(dataset.name, dataset.date);
  }
  return dates;
}
