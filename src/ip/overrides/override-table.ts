import type { ParsedIp } from "../address/parse.ts";
import { BROADEST_PREFIX } from "./ip-override.ts";
import { type OverrideInForce, OverrideLines } from "./override-lines.ts";

/**
 * The override lines in force for the request path: the database's (kept in step with the
 * store by the watch, a line at a time) and the allowlist file's (with the datasets). The line
 * that decides for an address:
 *
 * 1. the longest address or range line covering it, no broader than BROADEST_PREFIX;
 * 2. else the line of its network (AS);
 * 3. else the longest broader range line (one that was forced).
 *
 * At the same target a database line beats the allowlist file's. A lookup allocates nothing:
 * a few map reads per prefix length in use. Kept apart from the datasets' indexes: it changes
 * on every `riskcheck ip allow`, they change on updates.
 */
export class OverrideTable {
  constructor(
    private readonly file: OverrideLines,
    private readonly database: OverrideLines,
  ) {}

  /** A table of lines from both sources, each to its side. */
  static of(lines: readonly OverrideInForce[]): OverrideTable {
    const from = (source: OverrideInForce["source"]) => OverrideLines.of(lines.filter((l) => l.source === source));
    return new OverrideTable(from("allowlist-file"), from("database"));
  }

  /** The same allowlist file's lines with `database`'s (the live ones the watch keeps). */
  withDatabase(database: OverrideLines): OverrideTable {
    return new OverrideTable(this.file, database);
  }

  /** The line that decides for the address, whose network is `asn` (0: unknown), or null. */
  lookup(ip: ParsedIp, asn: number): OverrideInForce | null {
    if (this.database.size === 0 && this.file.size === 0) return null;
    const broadest = BROADEST_PREFIX[ip.version];
    const narrow = this.longest(ip, broadest, 128);
    if (narrow !== null) return narrow;
    const byNetwork = asn === 0 ? undefined : (this.database.asn(asn) ?? this.file.asn(asn));
    return byNetwork ?? this.longest(ip, 0, broadest - 1);
  }

  private longest(ip: ParsedIp, shortest: number, longest: number): OverrideInForce | null {
    const database = this.database.covering(ip, shortest, longest);
    const file = this.file.covering(ip, shortest, longest);
    if (file === null) return database?.line ?? null;
    return database !== null && database.length >= file.length ? database.line : file.line;
  }
}
