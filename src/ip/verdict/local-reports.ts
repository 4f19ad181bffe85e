import type { ParsedIp } from "../address/parse.ts";
import type { CounterName } from "./report-counting.ts";
import type { Counters } from "./reputation.ts";

/** What this deployment's own reports say of one category of an address. */
export interface LocalCategory {
  readonly category: CounterName;
  /** Distinct keys that reported the address in this category within the window. */
  readonly reporters: number;
  /** Those of them whose count goes to this counter: a key counts once per address, in its latest report's category. */
  readonly counted: number;
  readonly firstMs: number;
  readonly lastMs: number;
}

/** The `local` source's word on an address: one more source for the counters. */
export interface LocalContribution {
  readonly counters: Counters;
  readonly categories: readonly LocalCategory[];
}

/** The local reports as the verdict reads them: from memory, never the database. */
export interface LocalReportView {
  /** Null when no key reported the address within the window. */
  contributionOf(ip: ParsedIp): LocalContribution | null;
}
