import type { DomainLists } from "../email/domain-lists.ts";
import type { FreeListNames } from "../email/explanation.ts";
import type { OverrideLine } from "../email/overrides.ts";
import type { IpDatasets } from "../ip/answer/ip-facts.ts";
import type { OverrideLines } from "../ip/overrides/override-lines.ts";
import type { Manifest } from "./manifest.ts";

export interface DatasetInfo {
  /** What the dataset is: an output of `update` ("disposable-domains"), or an operator's file ("curated/vpn-asns.txt"). */
  readonly name: string;
  /** Where it was read from, inside the data directory ("datasets/<version>/geo/country.mmdb", "curated/vpn-asns.txt"). */
  readonly file: string;
  /** Entries loaded, where counting makes sense. */
  readonly entries?: number;
  /** The date of its data (an MMDB's build date, the newest of its sources' dates, a file's modification), or null. */
  readonly date: string | null;
}

/**
 * Everything a request reads, loaded at once and never changed (a reload replaces it whole),
 * but for the operator's override lines, which change in place (OverridesInForce).
 */
export interface Snapshot {
  readonly email: DomainLists;
  readonly ip: IpDatasets;
  readonly datasets: readonly DatasetInfo[];
  /** The dataset version folder it was loaded from. */
  readonly version: string;
  /** Per source and per compiled output, what the version holds (its manifest). */
  readonly sources: Manifest["sources"];
  readonly outputs: Manifest["outputs"];
  readonly loadedAt: string;
}

/**
 * The operator's override lines in force, from the database. The server's change in place, a
 * line at a time, as the watches follow the store: every snapshot served shares them.
 */
export interface OverridesInForce {
  readonly email: ReadonlyMap<string, OverrideLine>;
  readonly ip: OverrideLines;
}

/** The snapshot answering with the operator's override lines in force: what `serve` answers with, and `scan`. */
export function withOverrides(snapshot: Snapshot, active: OverridesInForce): Snapshot {
  return Object.freeze({
    ...snapshot,
    email: { ...snapshot.email, overrides: active.email },
    ip: { ...snapshot.ip, overrides: snapshot.ip.overrides.withDatabase(active.ip) },
  });
}

/** The sources the version's free-provider list came from, for the email reasons' `free`. */
export function freeListNames(snapshot: Snapshot): FreeListNames {
  return { sources: snapshot.outputs["free-domains"]?.sources ?? [] };
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
