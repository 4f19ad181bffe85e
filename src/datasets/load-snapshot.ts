import { buildDomainLists, parseDomainListText } from "../email/domain-lists.ts";
import type { Thresholds } from "../ip/reputation.ts";
import { loadIpDatasets } from "./load-ip-datasets.ts";
import { readManifest } from "./manifest.ts";
import { dataFilesAt } from "./data-layout.ts";
import type { DatasetInfo, Snapshot } from "./snapshot.ts";
import { readTextDataset } from "./read-text-dataset.ts";

export interface LoadReport {
  snapshot: Snapshot;
  /** One line per notable fact of the load, for the log. */
  notes: string[];
}

/** Builds a complete snapshot from the data directory, or throws a DatasetError naming the file. */
export async function loadSnapshot(dataDir: string, thresholds: Thresholds, root?: string, now = new Date()): Promise<LoadReport> {
  const files = dataFilesAt(dataDir, root);
  const [{ ip, datasets: ipDatasets }, disposable, wildcard, free, allow, feedAllow, manifest] = await Promise.all([
    loadIpDatasets(dataDir, thresholds, root),
    readTextDataset(files.disposableDomains),
    readTextDataset(files.disposableWildcards),
    readTextDataset(files.freeDomains),
    readTextDataset(files.allowedDomains, { optional: true }),
    readTextDataset(files.feedAllowedDomains, { optional: true }),
    readManifest(files.manifest),
  ]);
  const { lists, dropped } = buildDomainLists({
    disposable: parseDomainListText(disposable!.text),
    disposableWildcard: parseDomainListText(wildcard!.text),
    free: parseDomainListText(free!.text),
    allow: [...(allow ? parseDomainListText(allow.text) : []), ...(feedAllow ? parseDomainListText(feedAllow.text) : [])],
  });
  const notes: string[] = [];
  for (const [list, count] of Object.entries(dropped)) {
    if (count > 0) notes.push(`${list}: dropped ${count} entries that are not domain names`);
  }
  const datasets: DatasetInfo[] = [
    { name: "disposable-domains", file: files.disposableDomains, entries: lists.disposable.size, date: disposable!.modified },
    { name: "disposable-wildcards", file: files.disposableWildcards, entries: lists.disposableWildcard.size, date: wildcard!.modified },
    { name: "free-domains", file: files.freeDomains, entries: lists.free.size, date: free!.modified },
  ];
  if (allow) datasets.push({ name: "allowed-domains", file: files.allowedDomains, entries: lists.allow.size, date: allow.modified });
  datasets.push(...ipDatasets);
  return { snapshot: Object.freeze({ email: lists, ip, datasets, version: manifest?.version ?? "", sources: manifest?.sources ?? {}, loadedAt: now.toISOString() }), notes };
}
