import { CompiledPolicy, DEFAULT_ONLY } from "./compiled-policy.ts";
import type { PolicyStore, StoredPolicy } from "./policy-store.ts";

/**
 * The policy in force on this instance. Every second the server asks the store for its
 * revision, one small read, and reads the rules again only when it moved: a rule added,
 * switched or removed by any process (the CLI, the dashboard, the admin API, another
 * instance) applies within about a second. An expiry takes a rule out without asking the store.
 */
export class PolicyWatch {
  private stored: StoredPolicy | null = null;
  /** When the next rule in force expires; Infinity when none does. */
  private nextExpiryMs = Number.POSITIVE_INFINITY;
  current: CompiledPolicy = DEFAULT_ONLY;

  constructor(
    private readonly store: PolicyStore,
    private readonly now: () => number,
  ) {}

  /** The revision the rules in force were read at; null before the first read. */
  get revision(): number | null {
    return this.stored?.revision ?? null;
  }

  /** Reads the store if it moved; whether the policy in force changed. A failed read keeps the policy in force, and throws. */
  async refresh(): Promise<boolean> {
    const revision = await this.store.revision();
    if (this.stored !== null && revision === this.stored.revision) return this.recompile(false);
    this.stored = await this.store.read();
    return this.recompile(true);
  }

  private recompile(reread: boolean): boolean {
    const nowMs = this.now();
    if (!reread && nowMs < this.nextExpiryMs) return false;
    const rules = this.stored!.rules;
    const next = CompiledPolicy.inForce(rules, nowMs);
    this.nextExpiryMs = next.rules.reduce(
      (soonest, rule) => (rule.expires === null ? soonest : Math.min(soonest, Date.parse(rule.expires))),
      Number.POSITIVE_INFINITY,
    );
    if (next.version === this.current.version) return false;
    this.current = next;
    return true;
  }
}
