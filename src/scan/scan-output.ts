import type { EmailAnswer } from "../email/email-answer.ts";
import type { IpAnswer } from "../ip/answer/ip-answer.ts";
import type { InputKind, Row, BadRow } from "./input-rows.ts";
import type { ItemError } from "./row-answers.ts";

export type OutputFormat = "csv" | "jsonl";

/** A row's answers: absent where the row has no such value. */
export interface RowAnswers {
  readonly email: EmailAnswer | ItemError | null;
  readonly ip: IpAnswer | ItemError | null;
}

export const UNREADABLE_ROW = "unreadable_row";

/** Writes rows in one format; each method returns the text of whole lines. */
export interface RowFormat {
  header(): string;
  row(row: Row, answers: RowAnswers): string;
  bad(row: BadRow): string;
}

export function rowFormat(format: OutputFormat, input: { kind: InputKind; columns: readonly string[] }, explain: boolean): RowFormat {
  return format === "csv" ? new CsvFormat(input.columns, explain) : new JsonLinesFormat(input);
}

/** The answers' fields the CSV adds after the input's columns. */
const ANSWER_COLUMNS = ["domain", "is_disposable", "free_email", "country_code", "asn", "organization", "connection_type", "risky", "reputation", "kind", "error", "message"];

class CsvFormat implements RowFormat {
  private readonly blankInput: string[];

  constructor(
    private readonly columns: readonly string[],
    private readonly explain: boolean,
  ) {
    this.blankInput = columns.map(() => "");
  }

  header(): string {
    return csvLine(["line", ...this.columns, ...ANSWER_COLUMNS, ...(this.explain ? ["ip_reasons"] : [])]);
  }

  row(row: Row, { email, ip }: RowAnswers): string {
    const errors: ItemError[] = [];
    const cells: string[] = [String(row.line), ...row.cells];
    if (email === null || "error" in email) {
      if (email !== null) errors.push(email);
      cells.push("", "", "");
    } else {
      cells.push(email.domain, String(email.is_disposable), String(email.free_email));
    }
    let reasons = "";
    if (ip === null || "error" in ip) {
      if (ip !== null) errors.push(ip);
      cells.push("", "", "", "", "", "", "");
    } else {
      const r = ip.reputation;
      cells.push(ip.country_code, ip.asn, ip.organization, ip.connection_type, String(r.risky), r.reputation, r.kind.join(";"));
      if ("reasons" in r) reasons = JSON.stringify(r.reasons);
    }
    cells.push(errors.map((e) => e.error).join(";"), errors.map((e) => e.message).join("; "));
    if (this.explain) cells.push(reasons);
    return csvLine(cells);
  }

  bad(row: BadRow): string {
    const cells = [String(row.line), ...this.blankInput, ...ANSWER_COLUMNS.slice(2).map(() => ""), UNREADABLE_ROW, row.problem];
    if (this.explain) cells.push("");
    return csvLine(cells);
  }
}

class JsonLinesFormat implements RowFormat {
  constructor(private readonly input: { kind: InputKind; columns: readonly string[] }) {}

  header(): string {
    return "";
  }

  row(row: Row, { email, ip }: RowAnswers): string {
    let line = `{"line":${row.line},"input":${this.inputJson(row)}`;
    if (email !== null) line += `,"email":${JSON.stringify(email)}`;
    if (ip !== null) line += `,"ip":${JSON.stringify(ip)}`;
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
        this.input.columns.forEach((c, i) => (object[c] = row.cells[i]));
        return JSON.stringify(object);
      }
    }
  }
}

const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function csvLine(cells: readonly string[]): string {
  let line = csvField(cells[0]);
  for (let i = 1; i < cells.length; i++) line += `,${csvField(cells[i])}`;
  return `${line}\n`;
}
