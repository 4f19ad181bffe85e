import type { OverrideLine } from "../email/overrides.ts";
import type { IpOverrideLine } from "../ip/overrides/ip-override.ts";
import type { AuditRecorder } from "./audit-trail.ts";
import { lineChange } from "./audited-override-stores.ts";

/** The watches that take lines out of force at their end, and hand them over (email/override-watch.ts). */
interface Ending<L> {
  expire(): boolean;
  takeExpired(): L[];
}

type Ended =
  | { readonly kind: "email_override"; readonly target: string; readonly line: OverrideLine }
  | { readonly kind: "ip_override"; readonly target: string; readonly line: IpOverrideLine };

/**
 * Records each override line whose end has passed, once, whichever instance sees it first: a
 * line's expiry is nobody's act, so the server records it (`ip_override.expired`,
 * `email_override.expired`). The watches say which lines ended (those that had ended when they
 * were read too, as at a start); ends older than the log's retention are not recorded late.
 * What could not be recorded (the database failing) is tried again at the next check.
 */
export class OverrideExpiries {
  /** What this instance recorded or found recorded already, so that it asks the database once a line. */
  private readonly recorded = new Set<string>();
  private pending: Ended[] = [];

  constructor(
    private readonly watches: { readonly email: Ending<OverrideLine>; readonly ip: Ending<IpOverrideLine> },
    private readonly audit: AuditRecorder,
    private readonly retentionMs: number,
  ) {}

  async check(nowMs: number): Promise<void> {
    this.watches.email.expire();
    this.watches.ip.expire();
    this.pending.push(
      ...this.watches.email.takeExpired().map((line): Ended => ({ kind: "email_override", target: line.domain, line })),
      ...this.watches.ip.takeExpired().map((line): Ended => ({ kind: "ip_override", target: line.target, line })),
    );
    let done = 0;
    try {
      for (const { kind, target, line } of this.pending) {
        const once = `${kind}.expired ${target} ${line.until}`;
        if (Date.parse(line.until ?? "") > nowMs - this.retentionMs && !this.recorded.has(once)) {
          await this.audit.record(`${kind}.expired`, target, {
            once,
            change: lineChange(line, null),
            detail: `in force until ${line.until}; the line stays listed until removed`,
          });
          this.recorded.add(once);
        }
        done++;
      }
    } finally {
      this.pending = this.pending.slice(done);
    }
  }
}
