import type { Assessment } from "../assess/assessment.ts";
import type { CompiledPolicy } from "../assess/compiled-policy.ts";
import { DecisionTally } from "../assess/decision-tally.ts";
import { DECISIONS } from "../assess/policy-rule.ts";
import type { EmailAnswer } from "../email/email-answer-schema.ts";
import { LEVELS, type Level } from "../ip/verdict/reputation-schema.ts";
import { type IpChecked, reputationOf } from "../checks/answers.ts";
import type { ItemError } from "../checks/item-error.ts";

/** The levels from the mildest up, the order the summary lists them in. */
const MILDEST_FIRST: readonly Level[] = [...LEVELS].reverse();

/** What a scan found, counted as it goes: the picture a team wants first. */
export class ScanSummary {
  rows = 0;
  /** Rows that could not be read (broken CSV or JSON). */
  badRows = 0;
  emails = 0;
  invalidEmails = 0;
  disposable = 0;
  free = 0;
  ips = 0;
  invalidIps = 0;
  risky = 0;
  readonly levels = new Map<Level, number>(MILDEST_FIRST.map((l) => [l, 0]));
  /** Rows written to the output (fewer than `rows` with --only-risky). */
  written = 0;
  /** Where the values were read from, one line each (see RowReader.columnsUsed). */
  columns: readonly string[] = [];
  /** With --policy: the decisions, per rule what it decided or would have, and the rows not assessed. */
  readonly decisions: DecisionTally | null;
  notAssessed = 0;

  constructor(readonly policy: CompiledPolicy | null = null) {
    this.decisions = policy === null ? null : new DecisionTally(policy.rules);
  }

  /** A row's decision; null for a row that got none (unreadable, an invalid value, nothing to check). */
  decision(a: Assessment | null): void {
    if (a === null) this.notAssessed++;
    else this.decisions!.count(a);
  }

  email(answer: EmailAnswer | ItemError): void {
    this.emails++;
    if ("error" in answer) this.invalidEmails++;
    else if (answer.is_disposable) this.disposable++;
    else if (answer.free_email) this.free++;
  }

  ip(answer: IpChecked | ItemError): void {
    this.ips++;
    if ("error" in answer) {
      this.invalidIps++;
      return;
    }
    const { reputation, risky } = reputationOf(answer);
    this.levels.set(reputation, this.levels.get(reputation)! + 1);
    if (risky) this.risky++;
  }

  /** Label and count, one line each, in the order a person reads them. */
  table(): [string, number][] {
    return [
      ["rows", this.rows],
      ["unreadable rows", this.badRows],
      ["emails", this.emails],
      ["  invalid", this.invalidEmails],
      ["  disposable", this.disposable],
      ["  free provider", this.free],
      ["IP addresses", this.ips],
      ["  invalid", this.invalidIps],
      ...MILDEST_FIRST.map((l): [string, number] => [`  ${l}`, this.levels.get(l)!]),
      ["  risky (warning or bad)", this.risky],
      ["rows written", this.written],
    ];
  }

  /** With --policy: the decisions' lines, then one line per rule (what it decided, or would have in shadow). */
  policyLines(): string[] {
    const tally = this.decisions;
    if (tally === null) return [];
    const n = (x: number) => x.toLocaleString("en-US");
    const rows: [string, string][] = [
      ...DECISIONS.map((d): [string, string] => [`  ${d}`, n(tally.decisions[d])]),
      ["  not assessed (unreadable, an invalid value, or none)", n(this.notAssessed)],
    ];
    const width = Math.max(...rows.map(([label]) => label.length));
    const numberWidth = Math.max(...rows.map(([, x]) => x.length));
    const lines = [
      `decisions, policy ${this.policy!.version}:`,
      ...rows.map(([label, x]) => `${label.padEnd(width)}  ${x.padStart(numberWidth)}`),
    ];
    if (tally.rules.size === 0) return [...lines, "rules: none (the default policy decided every row)"];
    lines.push("rules, in order:");
    for (const t of tally.rules.values()) {
      const { id, mode, decision } = t.rule;
      lines.push(
        mode === "enforce"
          ? `  ${id} (enforce, ${decision}): decided ${n(t.decided)}`
          : `  ${id} (shadow, ${decision}): would have decided ${n(t.wouldDecide)}, changing ${n(t.wouldChange)}`,
      );
    }
    return lines;
  }

  toJSON() {
    return {
      rows: this.rows,
      unreadable_rows: this.badRows,
      emails: { checked: this.emails, invalid: this.invalidEmails, disposable: this.disposable, free: this.free },
      ips: { checked: this.ips, invalid: this.invalidIps, risky: this.risky, levels: Object.fromEntries(this.levels) },
      written: this.written,
      ...(this.decisions === null
        ? {}
        : {
            decisions: { ...this.decisions.decisions, not_assessed: this.notAssessed },
            rules: [...this.decisions.rules.values()].map((t) => ({
              id: t.rule.id,
              mode: t.rule.mode,
              decision: t.rule.decision,
              decided: t.decided,
              would_decide: t.wouldDecide,
              would_change: t.wouldChange,
            })),
          }),
    };
  }
}
