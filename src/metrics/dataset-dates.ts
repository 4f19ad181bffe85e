import type { Snapshot } from "../datasets/snapshot.ts";

/**
 * When the data of each dataset and source in a snapshot was produced: an MMDB's build
 * date or a list file's time, and a source's Last-Modified where it sent one.
 */
export function datasetDates(snapshot: Snapshot): Map<string, string> {
  const dates = new Map<string, string>();
  for (const dataset of snapshot.datasets) dates.set(dataset.name, dataset.date);
  for (const [name, source] of Object.entries(snapshot.sources)) {
    if (source.lastModified) dates.set(name, source.lastModified);
  }
  return dates;
}
