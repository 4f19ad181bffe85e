import type { FreeListReport } from "../email/domain-lists.ts";
import type { Thresholds } from "../ip/verdict/reputation.ts";
import { basename, isAbsolute, relative } from "node:path";
import { DEFAULT_EVIDENCE_RULE, type EvidenceRule } from "../email/evidence-rule.ts";
import { dataFilesAt } from "./data-layout.ts";
import { assembleIpDatasets } from "./load-ip-datasets.ts";
import type { Manifest } from "./manifest.ts";
import { assembleEmailLists } from "./prepare-email.ts";
import type { DatasetInfo, Snapshot } from "./snapshot.ts";
import { type StartedLoad, startLoad } from "./start-load.ts";
import { nextTurn } from "../time/next-turn.ts";

export interface LoadReport {
  snapshot: Snapshot;
  /** One line per notable fact of the load, for the log. */
  notes: string[];
  /** What became of the free list's names. */
  freeList: FreeListReport;
}

export interface LoadOptions {
  /** The version folder to load; the one `current` points at when left out. */
  readonly root?: string;
  /** The snapshot's load time. */
  readonly now?: Date;
  /** The evidence a disposable name needs (RISKCHECK_EMAIL_EVIDENCE). */
  readonly emailRule?: EvidenceRule;
  /** The Worker's load, when the caller began it earlier. */
  readonly started?: StartedLoad;
}

/**
 * Builds a complete snapshot from the data directory, or throws a DatasetError naming the
 * file. Without `root`, the version `current` points at when the load starts: every file
 * comes from that one folder, even if an update moves the link meanwhile. The reading,
 * checking and compiling run in a Worker; this thread only opens what it hands back, a piece
 * a turn of the event loop (a reload runs while requests are answered).
 * `started`: the load, when the caller began it earlier (`serve` does, before it imports
 * the rest of the program, with the IP half on its own thread: `startFirstLoad`).
 */
export async function loadSnapshot(
  dataDir: string,
  thresholds: Thresholds,
  options: LoadOptions = {},
): Promise<LoadReport> {
  const { now = new Date(), emailRule = DEFAULT_EVIDENCE_RULE } = options;
  const started = options.started ?? startLoad(dataDir, options.root, emailRule);
  const { root } = started;
  const files = dataFilesAt(dataDir, root);
  const prepared = await started.take();
  // The Worker's message, received and decoded, was this turn's piece.
  await nextTurn();
  const manifest = prepared.manifest ?? { version: "", created: "", base: null, sources: {}, outputs: {} };
  const email = prepared.email!;
  const {
    lists,
    dropped,
    freeReport,
    allowList: allow,
    feedAllow,
    supplement,
  } = { ...email, lists: assembleEmailLists(email) };
  await nextTurn();
  const { ip, datasets: ipDatasets, notes: ipNotes } = await assembleIpDatasets(prepared.ip, thresholds);
  const notes: string[] = [...ipNotes, ...email.notes];
  for (const [list, count] of Object.entries(dropped)) {
    if (count > 0) notes.push(`${list}: dropped ${count} entries that are not domain names`);
  }
  if (lists.belowEvidence > 0 || lists.heldBack.size > 0) {
    notes.push(
      `disposable lists: ${lists.belowEvidence} listed names below the evidence rule "${lists.rule}", ` +
        `${lists.heldBack.size} disputed names held back by update`,
    );
  }
  notes.push(
    `free providers: ${freeReport.kept} of ${freeReport.candidates} kept; left out ${freeReport.disposable} ` +
      `disposable, ${freeReport.throwawayName} named like throwaway services, ${freeReport.institutional} academic ` +
      `or government, ${freeReport.suffixOrReserved} public suffixes or reserved names`,
  );
  const datasets: DatasetInfo[] = [
    { name: "disposable-domains", file: files.disposableDomains, entries: lists.disposable.size, date: null },
    {
      name: "disposable-wildcards",
      file: files.disposableWildcards,
      entries: lists.disposableWildcard.size,
      date: null,
    },
    { name: "free-domains", file: files.freeDomains, entries: lists.free.size, date: null },
    ...(feedAllow ? [{ name: "allowed-domains", file: files.feedAllowedDomains, date: null }] : []),
    ...(allow ? [{ name: "operator-allowlist", file: files.allowedDomains, date: allow.modified }] : []),
    ...(supplement ? [{ name: "operator-free-providers", file: files.freeSupplement, date: supplement.modified }] : []),
    ...ipDatasets,
  ]
    .map((d) => (d.date === null ? { ...d, date: newestSourceDate(manifest, d.name) } : d))
    .map((d) => ({ ...d, file: withinDataDir(dataDir, d.file) }));
  return {
    snapshot: Object.freeze({
      email: lists,
      ip,
      datasets,
      version: manifest.version,
      sources: manifest.sources,
      outputs: manifest.outputs,
      loadedAt: now.toISOString(),
    }),
    notes,
    freeList: freeReport,
  };
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

/** A compiled output is as recent as the newest data of the sources it was composed from. */
function newestSourceDate(manifest: Manifest, output: string): string | null {
  const dates = (manifest.outputs[output]?.sources ?? [])
    .map((s) => manifest.sources[s]?.dataDate)
    .filter((d): d is string => !!d);
  return dates.length ? dates.sort().at(-1)! : null;
}
