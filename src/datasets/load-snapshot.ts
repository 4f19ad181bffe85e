import { type DomainLists, type DroppedCounts, type FreeListReport, buildDomainLists, parseDomainListText } from "../email/domain-lists.ts";
import type { SourceInput } from "../email/disposable-evidence.ts";
import { DEFAULT_EVIDENCE_RULE, type EvidenceRule } from "../email/evidence-rule.ts";
import { existsSync } from "node:fs";
import { parseEvidenceFile } from "./email-evidence.ts";
import type { Thresholds } from "../ip/verdict/reputation.ts";
import { basename, isAbsolute, join, relative } from "node:path";
import { dataFiles, dataFilesAt } from "./data-layout.ts";
import { loadIpDatasets } from "./load-ip-datasets.ts";
import { type Manifest, readManifest } from "./manifest.ts";
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
 * comes from that one folder, even if an update moves the link meanwhile.
 */
export async function loadSnapshot(dataDir: string, thresholds: Thresholds, givenRoot?: string, now = new Date(), emailRule: EvidenceRule = DEFAULT_EVIDENCE_RULE): Promise<LoadReport> {
  const version = givenRoot === undefined ? currentVersion(dataDir) : null;
  const root = givenRoot ?? (version === null ? undefined : join(dataFiles(dataDir).versions, version));
  const files = dataFilesAt(dataDir, root);
  const manifest = (await readManifest(files.manifest)) ?? { version: "", created: "", base: null, sources: {}, outputs: {} };
  const [{ ip, datasets: ipDatasets, notes: ipNotes }, { lists, dropped, free: freeReport, allow, feedAllow, supplement }] = await Promise.all([
    loadIpDatasets(dataDir, thresholds, root),
    loadEmailLists(dataDir, root, emailRule, manifest),
  ]);
  const notes: string[] = [...ipNotes];
  for (const [list, count] of Object.entries(dropped)) {
    if (count > 0) notes.push(`${list}: dropped ${count} entries that are not domain names`);
  }
  if (lists.belowEvidence > 0 || lists.heldBack.size > 0) {
    notes.push(`disposable lists: ${lists.belowEvidence} listed names below the evidence rule "${lists.rule}", ${lists.heldBack.size} disputed names held back by update`);
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
  ]
    .map((d) => (d.date === null ? { ...d, date: newestSourceDate(manifest, d.name) } : d))
    .map((d) => ({ ...d, file: withinDataDir(dataDir, d.file) }));
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
export async function loadEmailLists(dataDir: string, root?: string, rule: EvidenceRule = DEFAULT_EVIDENCE_RULE, givenManifest?: Manifest): Promise<EmailLists> {
  const files = dataFilesAt(dataDir, root);
  const manifest = givenManifest ?? (await readManifest(files.manifest));
  const [disposable, wildcard, free, allow, feedAllow, supplement, disputed, sources] = await Promise.all([
    readTextDataset(files.disposableDomains),
    readTextDataset(files.disposableWildcards),
    readTextDataset(files.freeDomains),
    readTextDataset(files.allowedDomains, { optional: true }),
    readTextDataset(files.feedAllowedDomains, { optional: true }),
    readTextDataset(files.freeSupplement, { optional: true }),
    readTextDataset(files.disputedDomains, { optional: true }),
    listedSources(files.emailEvidence, manifest),
  ]);
  const lines = (dataset: TextDataset | null) => (dataset ? parseDomainListText(dataset.text) : []);
  const built = buildDomainLists({
    // With each list apart, their union is not read again.
    disposable: sources ? [] : lines(disposable),
    disposableWildcard: sources ? [] : lines(wildcard),
    free: lines(free),
    freeSupplement: lines(supplement),
    allow: [...lines(allow), ...lines(feedAllow)],
    ...(sources ? { sources } : {}),
    rule,
    heldBack: lines(disputed),
    allowReasons: allow ? lineComments(allow.text) : new Map(),
  });
  return { ...built, allow, feedAllow, supplement };
}

/**
 * A file as a path inside the data directory ("datasets/<version>/email/free.txt"): the
 * snapshot's list reaches the unauthenticated /healthz, which has no business telling
 * where the appliance keeps its data. A file elsewhere is named by its file name only.
 */
function withinDataDir(dataDir: string, file: string): string {
  const inside = relative(dataDir, file);
  return inside.startsWith("..") || isAbsolute(inside) ? basename(file) : inside;
}

/**
 * Each disposable list apart, from the version's evidence files and its manifest's
 * declarations; null for a version made before lists were kept apart (its union then
 * counts as one list).
 */
async function listedSources(dir: string, manifest: Manifest | null): Promise<SourceInput[] | null> {
  if (manifest === null || !existsSync(dir)) return null;
  const kinds = [
    ["disposable-domains", false],
    ["disposable-wildcards", true],
  ] as const;
  const listed = kinds.flatMap(([output, wildcard]) => (manifest.outputs[output]?.sources ?? []).map((name) => ({ name, wildcard })));
  return Promise.all(
    listed.map(async ({ name, wildcard }) => {
      const dataset = await readTextDataset(`${dir}/${name}.txt`);
      const record = manifest.sources[name];
      return { name, verifies: record?.verifies ?? false, includes: record?.includes ?? [], wildcard, entries: parseEvidenceFile(dataset!.text), checkedAt: record?.checkedAt ?? null };
    }),
  );
}

/** `domain # why` lines: the why, by domain. */
function lineComments(text: string): Map<string, string> {
  const reasons = new Map<string, string>();
  for (const line of text.split("\n")) {
    const hash = line.indexOf("#");
    const domain = (hash === -1 ? line : line.slice(0, hash)).trim().toLowerCase();
    if (domain !== "" && hash !== -1) reasons.set(domain, line.slice(hash + 1).trim());
  }
  return reasons;
}

/** A compiled output is as recent as the newest data of the sources it was composed from. */
function newestSourceDate(manifest: Manifest, output: string): string | null {
  const dates = (manifest.outputs[output]?.sources ?? []).map((s) => manifest.sources[s]?.dataDate).filter((d): d is string => !!d);
  return dates.length ? dates.sort().at(-1)! : null;
}
