import type { EmailAnswer } from "../email/email-answer.ts";
import { LEVELS, type Level } from "../ip/verdict/reputation.ts";
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

  toJSON() {
    return {
      rows: this.rows,
      unreadable_rows: this.badRows,
      emails: { checked: this.emails, invalid: this.invalidEmails, disposable: this.disposable, free: this.free },
      ips: { checked: this.ips, invalid: this.invalidIps, risky: this.risky, levels: Object.fromEntries(this.levels) },
      written: this.written,
    };
  }
}
