import type { NewReport, ReportCategory, StoredReport } from "./report.ts";

/** One stored report as the verdict's index needs it. */
export interface ReportRow {
  readonly keyId: string;
  readonly ip: string;
  readonly category: ReportCategory;
  readonly reportedAtMs: number;
}

/**
 * What changed since `cursor`: with `reset`, `rows` is every report of the window and
 * replaces what the reader held (a first read, or reports were deleted or pruned);
 * otherwise `rows` are new reports, possibly some already seen.
 */
export interface ReportChanges {
  readonly reset: boolean;
  readonly rows: readonly ReportRow[];
  readonly cursor: string;
}

export interface ReportFilter {
  readonly ip?: string;
  readonly sinceMs?: number;
  readonly limit?: number;
}

/** Local abuse reports where they are kept: SQLite or PostgreSQL. */
export interface ReportStore {
  /**
   * Stores one key's reports in one transaction, committed before it returns: for each,
   * whether it was stored (false: a duplicate of the key's report of the same address
   * and category made after `dedupSinceMs`, or earlier in the same call).
   */
  add(keyId: string, reports: readonly NewReport[], nowMs: number, dedupSinceMs: number): Promise<boolean[]>;
  /** Newest first. */
  list(filter: ReportFilter): Promise<StoredReport[]>;
  /** Deletes an address's reports, or only one key's; how many went. */
  delete(ip: string, keyId?: string): Promise<number>;
  /** Deletes the reports made before `beforeMs`; how many went. */
  prune(beforeMs: number): Promise<number>;
  /** For the verdict's index (see ReportChanges); `windowStartMs` bounds a reset's rows. */
  changes(cursor: string | null, windowStartMs: number): Promise<ReportChanges>;
}

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
