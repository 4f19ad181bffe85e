import type { Assessment } from "./assessment.ts";
import { DECISIONS, type Decision, type PolicyRule } from "./policy-rule.ts";
import type { PolicyCount } from "./policy-store.ts";

/** What one rule did over many assessments. */
export interface RuleTally {
  readonly rule: PolicyRule;
  /** Assessments it decided (an enforcing rule). */
  decided: number;
  /** Assessments it would have decided (a shadow rule that matched before any enforcing rule did). */
  wouldDecide: number;
  /** Of those, the ones where its decision differs from the one taken: what switching it to enforce would change. */
  wouldChange: number;
}

/** The decisions of many assessments, and per rule what it decided or would have: a backtest's summary, or the stored counts'. */
export class DecisionTally {
  readonly decisions: Record<Decision, number> = { allow: 0, challenge: 0, block: 0 };
  /** By rule id: the policy's rules in order, each counted from 0. */
  readonly rules = new Map<string, RuleTally>();

  constructor(rules: readonly PolicyRule[]) {
    for (const rule of rules) this.of(rule);
  }

  count(a: Assessment): void {
    this.decisions[a.decision]++;
    if (a.rule !== null) this.of(a.rule).decided++;
    if (a.shadow === null) return;
    for (const rule of a.shadow) {
      const t = this.of(rule);
      t.wouldDecide++;
      if (rule.decision !== a.decision) t.wouldChange++;
    }
  }

  /** Adds a stored count (policy-counts.ts); a count of a rule no longer in the set is left out. */
  add(row: PolicyCount): void {
    if (row.rule === "") {
      if (DECISIONS.includes(row.outcome as Decision)) this.decisions[row.outcome as Decision] += row.count;
      return;
    }
    const t = this.rules.get(row.rule);
    if (t === undefined) return;
    if (row.outcome === "decided") t.decided += row.count;
    else if (row.outcome === "would_decide") t.wouldDecide += row.count;
    else if (row.outcome === "would_change") t.wouldChange += row.count;
  }

  get assessed(): number {
    return DECISIONS.reduce((n, d) => n + this.decisions[d], 0);
  }

  private of(rule: PolicyRule): RuleTally {
    let t = this.rules.get(rule.id);
    if (t === undefined) this.rules.set(rule.id, (t = { rule, decided: 0, wouldDecide: 0, wouldChange: 0 }));
    return t;
  }
}
