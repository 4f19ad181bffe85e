/**
 * The email half of a load (`prepare-datasets.ts` has the IP half): apart, so that a Worker
 * that prepares the email lists alone loads none of the IP code.
 */

import { DisposableEvidence, type ListedSource } from "../email/disposable-evidence.ts";
import type { DomainLists, DroppedCounts, FreeListReport } from "../email/domain-lists.ts";
import type { EvidenceRule } from "../email/evidence-rule.ts";
import { ListedNames, type ListedNamesParts } from "../email/listed-names.ts";
import { PackedDomainSet, type PackedDomainSetParts } from "../email/packed-domain-set.ts";
import { dataFilesAt } from "./data-layout.ts";
import { loadEmailLists } from "./load-email-lists.ts";
import { readManifest } from "./manifest.ts";
import type { TextDataset } from "./read-text-dataset.ts";

/** A disposable list's evidence with its packed entries as arrays. */
type PreparedSource = Omit<ListedSource, "entries"> & { readonly entries: PackedDomainSetParts };

export interface PreparedEmail {
  /**
   * The lists, their packed sets as arrays (the served disposable names are made from `listed` again); the small sets
   * and maps as they are.
   */
  readonly lists: Omit<DomainLists, "disposable" | "free" | "evidence" | "listed"> & {
    readonly free: PackedDomainSetParts;
    readonly evidence: readonly PreparedSource[];
    readonly listed: { readonly exact: ListedNamesParts; readonly wildcard: ListedNamesParts };
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
  const { disposable: _, ...l } = e.lists;
  return {
    lists: {
      ...l,
      free: (l.free as PackedDomainSet).parts,
      evidence: l.evidence.sources.map((source) => ({ ...source, entries: source.entries.parts })),
      listed: { exact: l.listed.exact.parts, wildcard: l.listed.wildcard.parts },
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
  const exact = ListedNames.fromParts(l.listed.exact);
  return {
    ...l,
    disposable: exact.served(l.rule, l.heldBack),
    listed: { exact, wildcard: ListedNames.fromParts(l.listed.wildcard) },
    free: PackedDomainSet.fromParts(l.free),
    evidence: new DisposableEvidence(
      l.evidence.map((source) => ({ ...source, entries: PackedDomainSet.fromParts(source.entries) })),
    ),
  };
}
