import { parseCidr } from "../../../ip/address/address-range.ts";
import { checkRejects } from "./content-checks.ts";
import type { FeedEntry } from "./feed-entry.ts";
import { checkPlausible } from "./plausible-ranges.ts";
import { ContentError } from "./parsed-source.ts";

/** A JSON list of labelled ranges being read: its entries, and the records that held no range (counted, the first one named). */
export class RangeEntries {
  private readonly entries: FeedEntry[] = [];
  private rejected = 0;
  private firstRejected: string | undefined;

  /**
   * The range `prefix` names, with its label and the provider's names for its place; a record without one is counted
   * as rejected at `where`.
   */
  add(prefix: unknown, where: string, label: string, regions: readonly string[] = []): void {
    const range = typeof prefix === "string" ? parseCidr(prefix) : null;
    if (range === null) {
      if (this.rejected++ === 0) this.firstRejected = where;
      return;
    }
    this.entries.push({ range, count: 1, label, ...(regions.length ? { regions } : {}) });
  }

  /**
   * The entries, once they pass what every such list must: at least one (else it is not `what`,
   * whose `shape` the error shows), few `records` without a range, and plausible ranges.
   */
  checked(what: string, shape: string, records: string, maxEntries: number): FeedEntry[] {
    if (this.entries.length === 0) throw new ContentError(`has no prefixes: expected ${what}, ${shape}`);
    checkRejects(this.entries.length, this.rejected, this.firstRejected, records);
    checkPlausible(
      this.entries.map((e) => e.range),
      { minEntries: 1, maxEntries, broadestV4: 8, broadestV6: 16 },
      what,
    );
    return this.entries;
  }
}
