import type { NewReport, ReportCategory, StoredReport } from "./report.ts";

/** One stored report as the verdict's index needs it. */
export interface ReportRow {
  readonly keyId: string;
  readonly ip: string;
  readonly category: ReportCategory;
  readonly reportedAtMs: number;
}

/**
 * A deletion as every reader applies it to its index: an address's reports (`ip`), a key's
 * (`keyId`), one key's of one address (both), or those made before `beforeMs` (a prune).
 */
export interface ReportDeletion {
  readonly ip: string | null;
  readonly keyId: string | null;
  readonly beforeMs: number | null;
}

/** What changed since a cursor: the deletions made since, in order (the rows come through `onRows`). */
export interface ReportChanges {
  readonly deletions: readonly ReportDeletion[];
  readonly cursor: string;
}

/** A report's comment, as the dashboard shows it beside its address and key. */
export interface ReportComment {
  readonly ip: string;
  readonly keyId: string;
  readonly category: ReportCategory;
  readonly comment: string;
  readonly reportedAtMs: number;
}

export interface ReportFilter {
  readonly ip?: string;
  readonly sinceMs?: number;
  readonly limit?: number;
}

/** What became of one report of an `add`. */
export type AddOutcome = "stored" | "duplicate" | "limit_reached";

export interface AddLimits {
  /** A key's report of the same address and category made after this is a duplicate. */
  readonly dedupSinceMs: number;
  /** The start of the key's day (UTC midnight), and how many distinct addresses it may report in it. */
  readonly daySinceMs: number;
  readonly dailyAddresses: number;
}

/** Local abuse reports where they are kept: SQLite or PostgreSQL. */
export interface ReportStore {
  /**
   * Stores one key's reports in one transaction, committed before it returns, and says of
   * each whether it was stored, a duplicate (of the key's report of the same address and
   * category made after `dedupSinceMs`, or earlier in the same call) or past the key's
   * daily limit of distinct addresses. A database locked, unreachable or full throws StorageUnavailable.
   */
  add(keyId: string, reports: readonly NewReport[], nowMs: number, limits: AddLimits): Promise<AddOutcome[]>;
  /** Newest first. */
  list(filter: ReportFilter): Promise<StoredReport[]>;
  /**
   * The comments of reports about `ips` made since `sinceMs`: of each address, each key's
   * `perKey` newest (reports without one left out), newest first within an address and key.
   */
  comments(ips: readonly string[], sinceMs: number, perKey: number): Promise<ReportComment[]>;
  /** Deletes an address's reports, a key's, or one key's of one address; how many went. */
  delete(target: { readonly ip?: string; readonly keyId?: string }, nowMs: number): Promise<number>;
  /** Deletes the reports made before `beforeMs`; how many went. */
  prune(beforeMs: number, nowMs: number): Promise<number>;
  /**
   * For the verdict's index. With no cursor: every report of the window (from
   * `windowStartMs`) through `onRows`, in pages, and no deletion. With one: the deletions
   * made since, to apply first, and the reports added since (possibly some already seen).
   * One consistent snapshot of the database.
   */
  changes(
    cursor: string | null,
    windowStartMs: number,
    onRows: (rows: readonly ReportRow[]) => void,
  ): Promise<ReportChanges>;
}

/** Pages of a full read: the rows of one page are all that is held at once. */
export const ROWS_PER_PAGE = 20_000;

/** Deduplicates within one call: the first report of each address and category counts. */
export function firstOfEach(reports: readonly NewReport[]): boolean[] {
  const seen = new Set<string>();
  return reports.map((r) => {
    const id = `${r.ip} ${r.category}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
