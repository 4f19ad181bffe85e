import type { ListedSource } from "../email/disposable-evidence.ts";
import type { DomainLists, DroppedCounts, FreeListReport } from "../email/domain-lists.ts";
import type { ListedNamesParts } from "../email/listed-names.ts";
import type { PackedDomainSetParts } from "../email/packed-domain-set.ts";
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
  /** The operator's allowlist, the version's feed allowlist and the operator's free supplement, where present. */
  readonly allowList: FileDate | null;
  readonly feedAllow: FileDate | null;
  readonly supplement: FileDate | null;
  /** What the load's log should say of the served lists' file. */
  readonly notes: readonly string[];
}

/** When a file was last written, as a load read it. */
export type FileDate = Pick<TextDataset, "modified">;
