import { type ParsedIp, parseIpAddress } from "../ip/address/parse.ts";
import type { LocalCategory, LocalContribution, LocalReportView } from "../ip/verdict/local-reports.ts";
import type { Counters } from "../ip/verdict/reputation.ts";
import type { ReportCategory } from "./report.ts";
import type { ReportRow } from "./report-store.ts";

/** One key's reports of one address in one category: the first and the last. */
interface Reporter {
  readonly keyId: string;
  readonly category: ReportCategory;
  firstMs: number;
  lastMs: number;
}

/** One reported address and every key's reports of it. */
interface Reported {
  readonly ip: string;
  readonly reporters: Reporter[];
}

/**
 * IPv4 addresses by their number, IPv6 ones by their canonical text: a number key is
 * found in a fraction of the time a string key takes once the table outgrows the CPU's
 * caches (bench/reports.ts), and most reported addresses are IPv4.
 */
class AddressTable {
  readonly v4 = new Map<number, Reported>();
  readonly v6 = new Map<string, Reported>();

  get size(): number {
    return this.v4.size + this.v6.size;
  }

  get(ip: ParsedIp): Reported | undefined {
    return ip.version === 4 ? this.v4.get(ip.v4) : this.v6.get(ip.text);
  }

  add(row: ReportRow): void {
    const ip = parseIpAddress(row.ip);
    if (ip === null) return;
    let entry = this.get(ip);
    if (entry === undefined) {
      entry = { ip: ip.text, reporters: [] };
      if (ip.version === 4) this.v4.set(ip.v4, entry);
      else this.v6.set(ip.text, entry);
    }
    const held = entry.reporters.find((r) => r.keyId === row.keyId && r.category === row.category);
    if (held === undefined) entry.reporters.push({ keyId: row.keyId, category: row.category, firstMs: row.reportedAtMs, lastMs: row.reportedAtMs });
    else {
      held.firstMs = Math.min(held.firstMs, row.reportedAtMs);
      held.lastMs = Math.max(held.lastMs, row.reportedAtMs);
    }
  }

  *entries(): Generator<Reported> {
    yield* this.v4.values();
    yield* this.v6.values();
  }
}

/** An address of the window with the keys that reported it, for the dashboard. */
export interface ReportedAddress {
  readonly ip: string;
  /** Distinct reporting keys, all categories together. */
  readonly reporters: number;
  readonly byKey: readonly { readonly keyId: string; readonly categories: readonly ReportCategory[]; readonly lastMs: number }[];
}

/**
 * Every reported address of the window with, per category, the keys that reported it and
 * when first and last: the `local` source of the verdict. Rows may arrive more than once
 * (the watch reads with overlap); a row only ever widens a reporter's first–last span.
 * Counting happens at read time against the window, so a report leaves the count when it
 * ages out, without a write.
 */
export class LocalReportIndex implements LocalReportView {
  private byAddress = new AddressTable();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  get addresses(): number {
    return this.byAddress.size;
  }

  add(rows: readonly ReportRow[]): void {
    for (const row of rows) this.byAddress.add(row);
  }

  /** Replaces everything held with these rows. */
  reset(rows: readonly ReportRow[]): void {
    const next = new AddressTable();
    for (const row of rows) next.add(row);
    this.byAddress = next;
  }

  contributionOf(ip: ParsedIp): LocalContribution | null {
    if (this.byAddress.size === 0) return null;
    const reporters = this.byAddress.get(ip)?.reporters;
    if (reporters === undefined) return null;
    const since = this.now() - this.windowMs;
    const counters: Counters = { bot: 0, probe: 0, rate: 0, attack: 0, crawler: 0 };
    const categories: LocalCategory[] = [];
    for (const r of reporters) {
      if (r.lastMs < since) continue;
      counters[r.category]++;
      const seen = categories.findIndex((c) => c.category === r.category);
      const prior = categories[seen];
      if (prior === undefined) categories.push({ category: r.category, reporters: 1, firstMs: r.firstMs, lastMs: r.lastMs });
      else categories[seen] = { category: r.category, reporters: prior.reporters + 1, firstMs: Math.min(prior.firstMs, r.firstMs), lastMs: Math.max(prior.lastMs, r.lastMs) };
    }
    return categories.length === 0 ? null : { counters, categories };
  }

  /** The addresses most keys reported within the window, most first. */
  mostReported(limit: number): ReportedAddress[] {
    const since = this.now() - this.windowMs;
    const all: ReportedAddress[] = [];
    for (const { ip, reporters } of this.byAddress.entries()) {
      const byKey = new Map<string, { keyId: string; categories: ReportCategory[]; lastMs: number }>();
      for (const r of reporters) {
        if (r.lastMs < since) continue;
        const entry = byKey.get(r.keyId) ?? { keyId: r.keyId, categories: [], lastMs: 0 };
        entry.categories.push(r.category);
        entry.lastMs = Math.max(entry.lastMs, r.lastMs);
        byKey.set(r.keyId, entry);
      }
      if (byKey.size > 0) all.push({ ip, reporters: byKey.size, byKey: [...byKey.values()] });
    }
    return all.sort((a, b) => b.reporters - a.reporters || a.ip.localeCompare(b.ip)).slice(0, limit);
  }
}
