import type { PolicyRule } from "../assess/policy-rule.ts";
import type { AuditRecorder } from "./audit-trail.ts";

/**
 * Records each assessment rule whose expiry has passed, once, whichever instance sees it first:
 * an expiry is nobody's act, so the server records it (`policy_rule.expired`). Expiries older
 * than the log's retention are not recorded late.
 */
export class RuleExpiries {
  /** What this instance recorded or found recorded already, so that it asks the database once a rule. */
  private readonly recorded = new Set<string>();

  constructor(
    private readonly rules: () => Promise<readonly PolicyRule[]>,
    private readonly audit: AuditRecorder,
    private readonly retentionMs: number,
  ) {}

  async check(nowMs: number): Promise<void> {
    for (const rule of await this.rules()) {
      if (rule.expires === null) continue;
      const endMs = Date.parse(rule.expires);
      if (endMs > nowMs || endMs <= nowMs - this.retentionMs) continue;
      const once = `policy_rule.expired ${rule.id} ${rule.expires}`;
      if (this.recorded.has(once)) continue;
      await this.audit.record("policy_rule.expired", rule.id, {
        once,
        change: { mode: { before: rule.mode, after: null } },
        detail: `in force until ${rule.expires}; the rule stays listed until removed`,
      });
      this.recorded.add(once);
    }
  }
}
