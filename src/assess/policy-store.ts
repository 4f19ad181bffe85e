import type { PolicyRule } from "./policy-rule.ts";

/** The operator's rules as stored: in order, with the revision every write moves by one. */
export interface StoredPolicy {
  readonly revision: number;
  readonly rules: readonly PolicyRule[];
}

/**
 * Where the rules are kept, one set for every instance (SQLite, or PostgreSQL shared by all):
 * written whole, so that a set is refused or taken as a whole, and only over the revision the
 * writer read, so that two writers never lose each other's change.
 */
export interface PolicyStore {
  read(): Promise<StoredPolicy>;
  /** Stores `rules` as revision `revision + 1`; false when the stored revision is no longer `revision` (another writer came first). */
  replace(rules: readonly PolicyRule[], revision: number): Promise<boolean>;
  /** The stored revision: one small read, cheap to ask every second. */
  revision(): Promise<number>;
  /** Adds the counts (policy-counts.ts) to the stored ones, in one transaction. */
  addCounts(rows: readonly PolicyCount[]): Promise<void>;
  /** Every count from `day` (YYYY-MM-DD, UTC) on. */
  countsSince(day: string): Promise<PolicyCount[]>;
}

/** What the assessments of one day and event came to: a decision taken (`rule` ""), or what a rule decided or would have. */
export interface PolicyCount {
  readonly day: string;
  readonly event: string;
  /** A rule's id; "" for the assessments' own decisions. */
  readonly rule: string;
  /** With rule "": the decision (allow, challenge, block); with a rule: decided, would_decide, would_change. */
  readonly outcome: string;
  readonly count: number;
}

/** The rules as both databases keep them: one JSON document. */
export function rulesJson(rules: readonly PolicyRule[]): string {
  return JSON.stringify({ rules });
}
