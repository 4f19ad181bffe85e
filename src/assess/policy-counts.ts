import type { Assessment } from "./assessment.ts";
import type { CompiledPolicy } from "./compiled-policy.ts";
import type { PolicyCount, PolicyStore } from "./policy-store.ts";

/** The events always counted apart; any other label is counted as `other` unless a rule names it, no label as `none`. */
export const COMMON_EVENTS: ReadonlySet<string> = new Set(["signup", "login", "payment"]);

/**
 * What this instance's assessments came to, counted in memory: per day and event, the decisions
 * taken, and what each rule decided or (in shadow) would have decided and would have changed.
 * `flush` adds them to the store's (the server flushes them with usage, every few seconds);
 * `sinceStart` is what /metrics shows. A client's event labels cannot grow the
 * counts without bound: only the common ones and those the rules name are kept apart.
 */
export class PolicyCounts {
  private unflushed = new Map<string, number>();
  /** The UTC day of the last count, as a number and as text: made once a day, not once a request. */
  private dayNumber = -1;
  private day = "";
  /** By `event decision` and `rule outcome` (space-separated), since this instance started. */
  readonly sinceStart = { decisions: new Map<string, number>(), rules: new Map<string, number>() };

  count(a: Assessment, policy: CompiledPolicy, nowMs: number): void {
    const event =
      a.facts.event === null
        ? "none"
        : COMMON_EVENTS.has(a.facts.event) || policy.events.has(a.facts.event)
          ? a.facts.event
          : "other";
    const dayNumber = Math.floor(nowMs / 86_400_000);
    if (dayNumber !== this.dayNumber) {
      this.dayNumber = dayNumber;
      this.day = new Date(dayNumber * 86_400_000).toISOString().slice(0, 10);
    }
    const day = this.day;
    this.add(day, event, "", a.decision);
    bump(this.sinceStart.decisions, `${event} ${a.decision}`);
    if (a.rule !== null) this.ruleCount(day, event, a.rule.id, "decided");
    if (a.shadow === null) return;
    for (const rule of a.shadow) {
      this.ruleCount(day, event, rule.id, "would_decide");
      if (rule.decision !== a.decision) this.ruleCount(day, event, rule.id, "would_change");
    }
  }

  /** The counts not yet stored, as rows, forgotten here. */
  private drain(): PolicyCount[] {
    const rows = [...this.unflushed].map(([key, count]) => {
      const [day, event, rule, outcome] = key.split("\t");
      return { day, event, rule, outcome, count };
    });
    this.unflushed = new Map();
    return rows;
  }

  /** Adds what was counted since the last flush to the store's counts; what could not be stored stays for the next one. */
  async flush(store: PolicyStore): Promise<void> {
    const rows = this.drain();
    try {
      await store.addCounts(rows);
    } catch (err) {
      for (const r of rows) this.add(r.day, r.event, r.rule, r.outcome, r.count);
      throw err;
    }
  }

  private ruleCount(day: string, event: string, rule: string, outcome: string): void {
    this.add(day, event, rule, outcome);
    bump(this.sinceStart.rules, `${rule} ${outcome}`);
  }

  private add(day: string, event: string, rule: string, outcome: string, n = 1): void {
    bump(this.unflushed, `${day}\t${event}\t${rule}\t${outcome}`, n);
  }
}

function bump(map: Map<string, number>, key: string, n = 1): void {
  map.set(key, (map.get(key) ?? 0) + n);
}
