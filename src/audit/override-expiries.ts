import type { OverrideLine } from "../email/overrides.ts";
import type { IpOverrideLine } from "../ip/overrides/ip-override.ts";
import type { AuditRecorder } from "./audit-trail.ts";
import { lineChange } from "./audited-override-stores.ts";

/**
 * Records each override line whose end has passed, once, whichever instance sees it first: a
 * line's expiry is nobody's act, so the server records it (`ip_override.expired`,
 * `email_override.expired`). Ends older than the log's retention are not recorded late.
 */
export class OverrideExpiries {
  /** What this instance recorded or found recorded already, so that it asks the database once a line. */
  private readonly recorded = new Set<string>();

  constructor(
    private readonly lines: () => Promise<{ readonly email: OverrideLine[]; readonly ip: IpOverrideLine[] }>,
    private readonly audit: AuditRecorder,
    private readonly retentionMs: number,
  ) {}

  async check(nowMs: number): Promise<void> {
    const { email, ip } = await this.lines();
    const ending = [
      ...email.map((line) => ({ kind: "email_override" as const, target: line.domain, line })),
      ...ip.map((line) => ({ kind: "ip_override" as const, target: line.target, line })),
    ];
    for (const { kind, target, line } of ending) {
      if (line.until === null) continue;
      const endMs = Date.parse(line.until);
      if (endMs > nowMs || endMs <= nowMs - this.retentionMs) continue;
      const once = `${kind}.expired ${target} ${line.until}`;
      if (this.recorded.has(once)) continue;
      await this.audit.record(`${kind}.expired`, target, {
        once,
        change: lineChange(line, null),
        detail: `in force until ${line.until}; the line stays listed until removed`,
      });
      this.recorded.add(once);
    }
  }
}
