/**
 * The email half of a load (`prepare-datasets.ts` has the IP half): apart, so that a Worker
 * that prepares the email lists alone loads none of the IP code.
 */

import { DisposableEvidence, type ListedSource } from "../email/disposable-evidence.ts";
import type { DomainLists, DroppedCounts, FreeListReport } from "../email/domain-lists.ts";
import type { EvidenceRule } from "../email/evidence-rule.ts";
import { PackedDomainSet, type PackedDomainSetParts } from "../email/packed-domain-set.ts";
import { dataFilesAt } from "./data-layout.ts";
import { loadEmailLists } from "./load-email-lists.ts";
import { readManifest } from "./manifest.ts";
import type { TextDataset } from "./read-text-dataset.ts";

/** A disposable list's evidence with its packed entries as arrays. */
type PreparedSource = Omit<ListedSource, "entries"> & { readonly entries: PackedDomainSetParts };

export interface PreparedEmail {
  /** The lists, their packed sets as arrays; the small sets and maps as they are. */
  readonly lists: Omit<DomainLists, "disposable" | "free" | "evidence"> & {
    readonly disposable: PackedDomainSetParts;
    readonly free: PackedDomainSetParts;
    readonly evidence: readonly PreparedSource[];
  };
  readonly dropped: DroppedCounts;
  readonly freeReport: FreeListReport;
  readonly allowList: TextDataset | null;
  readonly feedAllow: TextDataset | null;
  readonly supplement: TextDataset | null;
}

/** A version's email lists under `rule`, their packed sets handed over as arrays. */
export async function prepareEmailPart(
  dataDir: string,
  root: string | undefined,
  rule: EvidenceRule,
): Promise<PreparedEmail> {
  const manifest = await readManifest(dataFilesAt(dataDir, root).manifest);
  const e = await loadEmailLists(dataDir, root, rule, manifest ?? undefined);
  const l = e.lists;
  return {
    lists: {
      ...l,
      disposable: (l.disposable as PackedDomainSet).parts,
      free: (l.free as PackedDomainSet).parts,
      evidence: l.evidence.sources.map((source) => ({ ...source, entries: source.entries.parts })),
    },
    dropped: e.dropped,
    freeReport: e.free,
    allowList: e.allow,
    feedAllow: e.feedAllow,
    supplement: e.supplement,
  };
}

/** The email lists from what `prepareEmailPart` packed. */
export function assembleEmailLists(e: PreparedEmail): DomainLists {
  const l = e.lists;
  return {
    ...l,
    disposable: PackedDomainSet.fromParts(l.disposable),
    free: PackedDomainSet.fromParts(l.free),
    evidence: new DisposableEvidence(
      l.evidence.map((source) => ({ ...source, entries: PackedDomainSet.fromParts(source.entries) })),
    ),
  };
}
