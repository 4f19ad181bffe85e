import { type DomainLists, type DroppedCounts, type FreeListReport, buildDomainLists, parseDomainListText } from "../email/domain-lists.ts";
import type { Thresholds } from "../ip/verdict/reputation.ts";
import { join } from "node:path";
import { dataFiles, dataFilesAt } from "./data-layout.ts";
import { assembleIpDatasets } from "./load-ip-datasets.ts";
import { prepareInWorker } from "./load-in-worker.ts";
import type { Manifest } from "./manifest.ts";
import { assembleEmailLists } from "./prepare-datasets.ts";
import { type TextDataset, readTextDataset } from "./read-text-dataset.ts";
import type { DatasetInfo, Snapshot } from "./snapshot.ts";
import { currentVersion } from "./versions.ts";

export interface LoadReport {
  snapshot: Snapshot;
  /** One line per notable fact of the load, for the log. */
  notes: string[];
  /** What became of the free list's names. */
  freeList: FreeListReport;
}

/**
 * Builds a complete snapshot from the data directory, or throws a DatasetError naming the
 * file. Without `root`, the version `current` points at when the load starts: every file
 * comes from that one folder, even if an update moves the link meanwhile. The reading,
 * checking and compiling run in a Worker; this thread only opens what it hands back.
 */
export async function loadSnapshot(dataDir: string, thresholds: Thresholds, givenRoot?: string, now = new Date()): Promise<LoadReport> {
  const version = givenRoot === undefined ? currentVersion(dataDir) : null;
  const root = givenRoot ?? (version === null ? undefined : join(dataFiles(dataDir).versions, version));
  const files = dataFilesAt(dataDir, root);
  const prepared = await prepareInWorker(dataDir, root, true);
  const manifest = prepared.manifest ?? { version: "", created: "", base: null, sources: {}, outputs: {} };
  const email = prepared.email!;
  const { lists, dropped, freeReport, allowList: allow, feedAllow, supplement } = { ...email, lists: assembleEmailLists(email) };
  const { ip, datasets: ipDatasets, notes: ipNotes } = await assembleIpDatasets(prepared.ip, thresholds);
  const notes: string[] = [...ipNotes];
  for (const [list, count] of Object.entries(dropped)) {
    if (count > 0) notes.push(`${list}: dropped ${count} entries that are not domain names`);
  }
  notes.push(
    `free providers: ${freeReport.kept} of ${freeReport.candidates} kept; left out ${freeReport.disposable} disposable, ${freeReport.throwawayName} named like throwaway services, ${freeReport.institutional} academic or government, ${freeReport.suffixOrReserved} public suffixes or reserved names`,
  );
  const datasets: DatasetInfo[] = [
    { name: "disposable-domains", file: files.disposableDomains, entries: lists.disposable.size, date: null },
    { name: "disposable-wildcards", file: files.disposableWildcards, entries: lists.disposableWildcard.size, date: null },
    { name: "free-domains", file: files.freeDomains, entries: lists.free.size, date: null },
    ...(feedAllow ? [{ name: "allowed-domains", file: files.feedAllowedDomains, date: null }] : []),
    ...(allow ? [{ name: "operator-allowlist", file: files.allowedDomains, date: allow.modified }] : []),
    ...(supplement ? [{ name: "operator-free-providers", file: files.freeSupplement, date: supplement.modified }] : []),
    ...ipDatasets,
  ].map((d) => (d.date === null ? { ...d, date: newestSourceDate(manifest, d.name) } : d));
  return {
    snapshot: Object.freeze({ email: lists, ip, datasets, version: manifest.version, sources: manifest.sources, outputs: manifest.outputs, loadedAt: now.toISOString() }),
    notes,
    freeList: freeReport,
  };
}

export interface EmailLists {
  readonly lists: DomainLists;
  readonly dropped: DroppedCounts;
  readonly free: FreeListReport;
  /** The operator's allowlist, the version's feed allowlist and the operator's free supplement, where present. */
  readonly allow: TextDataset | null;
  readonly feedAllow: TextDataset | null;
  readonly supplement: TextDataset | null;
}

/**
 * The email lists as a version serves them: its compiled lists with the operator's
 * allowlist and free supplement, without the IP datasets. Without `root`, the current version.
 */
export async function loadEmailLists(dataDir: string, root?: string): Promise<EmailLists> {
  const files = dataFilesAt(dataDir, root);
  const [disposable, wildcard, free, allow, feedAllow, supplement] = await Promise.all([
    readTextDataset(files.disposableDomains),
    readTextDataset(files.disposableWildcards),
    readTextDataset(files.freeDomains),
    readTextDataset(files.allowedDomains, { optional: true }),
    readTextDataset(files.feedAllowedDomains, { optional: true }),
    readTextDataset(files.freeSupplement, { optional: true }),
  ]);
  const lines = (dataset: TextDataset | null) => (dataset ? parseDomainListText(dataset.text) : []);
  const built = buildDomainLists({
    disposable: lines(disposable),
    disposableWildcard: lines(wildcard),
    free: lines(free),
    freeSupplement: lines(supplement),
    allow: [...lines(allow), ...lines(feedAllow)],
  });
  return { ...built, allow, feedAllow, supplement };
}

/** A compiled output is as recent as the newest data of the sources it was composed from. */
function newestSourceDate(manifest: Manifest, output: string): string | null {
  const dates = (manifest.outputs[output]?.sources ?? []).map((s) => manifest.sources[s]?.dataDate).filter((d): d is string => !!d);
  return dates.length ? dates.sort().at(-1)! : null;
}
