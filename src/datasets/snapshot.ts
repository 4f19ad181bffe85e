import type { DomainLists } from "../email/domain-lists.ts";
import type { IpDatasets } from "../ip/intelligence.ts";
import type { SourceRecord } from "./manifest.ts";

export interface DatasetInfo {
  /** What the dataset is, e.g. "disposable-domains". */
  readonly name: string;
  readonly file: string;
  /** Entries loaded, where counting makes sense. */
  readonly entries?: number;
  /** When the data was produced (build date of an MMDB, modification time of a list). */
  readonly date: string;
}

/** Everything a request reads, loaded at once and never changed; a reload replaces it whole. */
export interface Snapshot {
  readonly email: DomainLists;
  readonly ip: IpDatasets;
  readonly datasets: readonly DatasetInfo[];
  /** The dataset version folder it was loaded from. */
  readonly version: string;
  /** Where the version's data came from, per source (its manifest). */
  readonly sources: Readonly<Record<string, SourceRecord>>;
  readonly loadedAt: string;
}

export class SnapshotHolder {
  constructor(private snapshot: Snapshot) {}

  current(): Snapshot {
    return this.snapshot;
  }

  replace(next: Snapshot): void {
    this.snapshot = next;
  }
}
