export type Outcome = "updated" | "unchanged" | "skipped" | "failed" | "removed";

/** What `update` did with one source. */
export interface SourceOutcome {
  readonly name: string;
  readonly outcome: Outcome;
  readonly entries?: number;
  readonly dataDate?: string | null;
  readonly detail: string;
  /** A source not refreshed (failed or skipped): why, without what it keeps, and the date of the data it keeps (null: none yet). */
  readonly problem?: string;
  readonly keeps?: string | null;
}
