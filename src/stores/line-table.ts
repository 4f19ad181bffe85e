import type { OverrideRow } from "../email/overrides.ts";

/** What both kinds of override line have but their target. */
export type StoredLine = {
  readonly action: string;
  readonly reason: string;
  readonly author: string;
  readonly created: string;
  readonly until: string | null;
  readonly keyId?: string;
};

/**
 * One kind of override line as both databases keep it: its table, its target column, its name
 * in the log of changes and the counts the two share, and the line a row reads as.
 */
export interface LineTable<L extends StoredLine> {
  readonly table: "email_overrides" | "ip_overrides";
  readonly column: "domain" | "target";
  readonly kind: "email" | "ip";
  readonly lineOf: (row: OverrideRow) => L;
  readonly targetOf: (line: L) => string;
}
