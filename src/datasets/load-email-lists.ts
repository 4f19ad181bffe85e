import { type DomainLists, type DroppedCounts, type FreeListReport, buildDomainLists, parseDomainListText } from "../email/domain-lists.ts";
import { dataFilesAt } from "./data-layout.ts";
import { type TextDataset, readTextDataset } from "./read-text-dataset.ts";

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
