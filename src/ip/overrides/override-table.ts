import type { ParsedIp } from "../address/parse.ts";
import { RangeIndexBuilder } from "../indexes/range-index-builder.ts";
import { NOT_FOUND, RangeIndex } from "../indexes/range-index.ts";
import { parseCidr } from "../address/address-range.ts";
import type { IpOverrideLine } from "./ip-override.ts";

/** Where a line in force came from: the database, or `data/ip/allowlist.txt`. */
export interface OverrideInForce extends IpOverrideLine {
  readonly source: "database" | "allowlist-file";
}

/**
 * The override lines in force, compiled for the request path: the address and range lines
 * into sorted, non-overlapping intervals, each holding the most specific line that covers
 * it (the longer prefix; at equal prefixes a database line beats the allowlist file's), and
 * the AS lines in a map. A lookup is one binary search and, when no range line covers the
 * address, one map read: no database, nothing allocated. Kept apart from the datasets'
 * indexes: it changes on every `riskcheck ip allow`, they change on updates.
 */
export class OverrideTable {
  private readonly lines: readonly OverrideInForce[];
  private readonly ranges: RangeIndex;
  private readonly byAsn: ReadonlyMap<number, OverrideInForce>;

  /** `lines` apply as given: expired ones are left out by the caller. */
  constructor(lines: readonly OverrideInForce[]) {
    this.lines = lines;
    const builder = new RangeIndexBuilder<number>();
    const prefixes: number[] = [];
    const byAsn = new Map<number, OverrideInForce>();
    lines.forEach((line, at) => {
      // Lines are kept in ipOverrideTarget's form: read back without writing them again. A row
      // edited by hand into something else decides nothing (riskcheck ip list still shows it).
      const { target } = line;
      prefixes[at] = -1;
      if (target.startsWith("AS")) {
        const asn = Number(target.slice(2));
        if (Number.isInteger(asn) && (!byAsn.has(asn) || line.source === "database")) byAsn.set(asn, line);
        return;
      }
      const range = parseCidr(target);
      if (range === null) return;
      const slash = target.indexOf("/");
      prefixes[at] = slash === -1 ? 128 : Number(target.slice(slash + 1));
      builder.add(range, at);
    });
    const morePrecise = (a: number, b: number) =>
      prefixes[a] - prefixes[b] || (lines[a].source === "database" ? 1 : 0) - (lines[b].source === "database" ? 1 : 0);
    this.ranges = new RangeIndex(
      builder.build(
        (covering) => covering.reduce((best, at) => (morePrecise(at, best) > 0 ? at : best)),
        (at) => at,
      ),
    );
    this.byAsn = byAsn;
  }

  get size(): number {
    return this.lines.length;
  }

  /** The line that decides for the address, whose network is `asn` (0: unknown), or null. */
  lookup(ip: ParsedIp, asn: number): OverrideInForce | null {
    if (this.lines.length === 0) return null;
    const at = this.ranges.lookup(ip);
    if (at !== NOT_FOUND) return this.lines[at];
    return (asn !== 0 && this.byAsn.get(asn)) || null;
  }
}
