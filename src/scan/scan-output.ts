import type { Assessment } from "../assess/assessment.ts";
import { decisionJson } from "../assess/assessment-json.ts";
import type { EmailAnswer } from "../email/email-answer-schema.ts";
import { asnText } from "../ip/answer/ip-answer.ts";
import { spreadsheetCsvField } from "../text/spreadsheet-csv.ts";
import type { BadRow, InputKind, Row } from "./input-rows.ts";
import { type Answers, type IpChecked, reputationOf } from "../checks/answers.ts";
import type { ItemError } from "../checks/item-error.ts";

export type OutputFormat = "csv" | "jsonl";

/** A row's answers: null where the row has no such value. */
export interface RowAnswers {
  readonly email: EmailAnswer | ItemError | null;
  readonly ip: IpChecked | ItemError | null;
  /** With --policy: the row's decision, null when it got none; absent without a policy. */
  readonly assessment?: Assessment | null;
}

export const UNREADABLE_ROW = "unreadable_row";

/** Writes rows in one format; each method returns the text of whole lines. */
export interface RowFormat {
  header(): string;
  row(row: Row, answers: RowAnswers): string;
  bad(row: BadRow): string;
}

export function rowFormat(
  format: OutputFormat,
  input: { kind: InputKind; columns: readonly string[] },
  answers: Answers,
  decisions: boolean,
): RowFormat {
  return format === "csv" ? new CsvFormat(input.columns, answers, decisions) : new JsonLinesFormat(input, answers);
}

/** The answers' fields the CSV adds after the input's columns. */
const ANSWER_COLUMNS = [
  "domain",
  "is_disposable",
  "free_email",
  "country_code",
  "asn",
  "organization",
  "connection_type",
  "risky",
  "reputation",
  "kind",
  "error",
  "message",
];
/** With --policy, the decision after the answers' fields: the reasons' codes and the shadow rules' ids `;`-separated. */
const DECISION_COLUMNS = ["decision", "score", "reasons", "rule", "shadow"];
const NO_DECISION = ",,,,,";
/** With --explain, the reasons as JSON, after the answers' fields (and the decision). */
const REASON_COLUMNS = ["email_reasons", "ip_reasons"];
const NO_EMAIL = ",,,";
const NO_IP = ",,,,,,,";

/** `kindNames` shares one array per set of kinds: each is joined once. */
const joinedKinds = new Map<readonly string[], string>();
function kindText(kind: readonly string[]): string {
  let text = joinedKinds.get(kind);
  if (text === undefined) joinedKinds.set(kind, (text = kind.join(";")));
  return text;
}

class CsvFormat implements RowFormat {
  constructor(
    private readonly columns: readonly string[],
    private readonly answers: Answers,
    private readonly decisions: boolean,
  ) {}

  header(): string {
    return csvLine([
      "line",
      ...this.columns,
      ...ANSWER_COLUMNS,
      ...(this.decisions ? DECISION_COLUMNS : []),
      ...(this.answers.explain ? REASON_COLUMNS : []),
    ]);
  }

  row(row: Row, { email, ip, assessment }: RowAnswers): string {
    let line = String(row.line);
    for (const cell of row.cells) line += `,${csvField(cell)}`;
    let errors = "";
    let messages = "";
    let emailReasons = "";
    if (email === null) line += NO_EMAIL;
    else if ("error" in email) {
      line += NO_EMAIL;
      errors = email.error;
      messages = email.message;
    } else {
      line += `,${email.domain},${email.is_disposable},${email.free_email}`;
      if (this.answers.explain) emailReasons = this.answers.emailReasonsJson(email);
    }
    let reasons = "";
    if (ip === null) line += NO_IP;
    else if ("error" in ip) {
      line += NO_IP;
      errors += (errors ? ";" : "") + ip.error;
      messages += (messages ? "; " : "") + ip.message;
    } else {
      const r = reputationOf(ip);
      const f = ip.facts;
      line +=
        f === null
          ? ",,,,"
          : `,${f.located.countryCode},${csvField(asnText(f.owner))},${csvField(f.owner.organization)},${f.connectionType}`;
      line += `,${r.risky},${r.reputation},${kindText(r.kind)}`;
      if (this.answers.explain) reasons = this.answers.ipReasonsJson(ip);
    }
    line += `,${errors},${csvField(messages)}`;
    if (this.decisions) line += assessment ? decisionCells(assessment) : NO_DECISION;
    if (this.answers.explain) line += `,${csvField(emailReasons)},${csvField(reasons)}`;
    return `${line}\n`;
  }

  bad(row: BadRow): string {
    const cells = [
      String(row.line),
      ...this.columns.map(() => ""),
      ...ANSWER_COLUMNS.slice(2).map(() => ""),
      UNREADABLE_ROW,
      row.problem,
    ];
    if (this.decisions) cells.push(...DECISION_COLUMNS.map(() => ""));
    if (this.answers.explain) cells.push(...REASON_COLUMNS.map(() => ""));
    return csvLine(cells);
  }
}

class JsonLinesFormat implements RowFormat {
  constructor(
    private readonly input: { kind: InputKind; columns: readonly string[] },
    private readonly answers: Answers,
  ) {}

  header(): string {
    return "";
  }

  row(row: Row, { email, ip, assessment }: RowAnswers): string {
    let line = `{"line":${row.line},"input":${this.inputJson(row)}`;
    if (email !== null) line += `,"email":${"error" in email ? JSON.stringify(email) : this.answers.emailJson(email)}`;
    if (ip !== null) line += `,"ip":${"error" in ip ? JSON.stringify(ip) : this.answers.ipJson(ip)}`;
    if (assessment !== undefined) line += `,"assessment":${assessment === null ? "null" : decisionJson(assessment)}`;
    return `${line}}\n`;
  }

  bad(row: BadRow): string {
    return `${JSON.stringify({ line: row.line, error: UNREADABLE_ROW, message: row.problem })}\n`;
  }

  /** CSV rows as objects by column, a JSON line as it was, a plain line as its string. */
  private inputJson(row: Row): string {
    switch (this.input.kind) {
      case "jsonl":
        return row.cells[0];
      case "lines":
        return JSON.stringify(row.cells[0]);
      case "csv": {
        const object: Record<string, string> = {};
        this.input.columns.forEach((c, i) => {
          object[c] = row.cells[i];
        });
        return JSON.stringify(object);
      }
    }
  }
}

/** decision, score, reason codes, deciding rule, shadow rules that would have decided: ids and codes need no quoting. */
function decisionCells(a: Assessment): string {
  let codes = "";
  for (const r of a.facts.reasons) codes += codes === "" ? r.code : `;${r.code}`;
  let shadow = "";
  if (a.shadow !== null) for (const r of a.shadow) shadow += shadow === "" ? r.id : `;${r.id}`;
  return `,${a.decision},${a.facts.score},${codes},${a.rule?.id ?? ""},${shadow}`;
}

/**
 * Every field that holds text from the input or the datasets: a cell that a spreadsheet would run as a formula is
 * written as text, as `reports export` writes its fields.
 */
const csvField = spreadsheetCsvField;

function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvField).join(",")}\n`;
}
