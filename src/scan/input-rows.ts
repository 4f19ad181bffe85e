import { type CsvRecord, CsvRecords, MAX_RECORD_CHARS, TOO_LONG } from "./csv-records.ts";
import {
  type ColumnChoice,
  type Columns,
  describeColumn,
  describeCsvColumns,
  findColumns,
  looksLikeEmailColumn,
  looksLikeIpColumn,
} from "./input-columns.ts";

export type InputKind = "csv" | "jsonl" | "lines";

/** One input row: the values to check (null where it has none) and its cells as the output repeats them. */
export interface Row {
  readonly line: number;
  readonly email: string | null;
  readonly ip: string | null;
  /** CSV: the fields; JSON Lines: the line's JSON text; plain lines: the value. */
  readonly cells: readonly string[];
}

/** A row that could not be read; it is reported and the scan goes on. */
export interface BadRow {
  readonly line: number;
  readonly problem: string;
}

export type InputRow = Row | BadRow;

/** Turns the input's text, as it arrives, into rows. */
export interface RowReader {
  readonly kind: InputKind;
  /** The names of `cells`, for the output's header. */
  readonly columns: readonly string[];
  push(text: string, into: InputRow[]): void;
  end(into: InputRow[]): void;
  /** For the summary, one line each: where the values were read from, and the columns or keys that looked like others. */
  columnsUsed(): string[];
}

/**
 * The reader for an input whose first line is `firstLine`: JSON Lines when it starts with
 * `{` or `"`, CSV when it is a header (several fields, or a field named like an email or IP
 * column, or the one the user named), one value per line otherwise. Returns a message when
 * the input cannot be read with the columns asked for.
 */
export function openRowReader(firstLine: string, choice: ColumnChoice): RowReader | string {
  const trimmed = firstLine.replace(/^\uFEFF/, "").trim();
  if (trimmed.startsWith("{") || (trimmed.startsWith('"') && !trimmed.includes(",")))
    return new JsonLinesReader(choice);
  // No header is that long: each line is a value (and this one too long to be read).
  if (firstLine.length >= MAX_RECORD_CHARS) return new PlainLinesReader();
  const first = new CsvRecords().push(`${firstLine.replace(/^\uFEFF/, "")}\n`)[0];
  const fields = first !== undefined && "fields" in first ? first.fields : null;
  const named = choice.email !== undefined || choice.ip !== undefined;
  const isHeader =
    fields !== null &&
    (fields.length > 1 || named || fields.some((f) => looksLikeEmailColumn(f) || looksLikeIpColumn(f)));
  if (!isHeader) {
    if (first !== undefined && "problem" in first) return `the first line is no CSV header: ${first.problem}`;
    return new PlainLinesReader();
  }
  const columns = findColumns(fields, choice);
  if (typeof columns === "string") return columns;
  return new CsvReader(fields, columns);
}

/**
 * The input's lines, numbered from 1, without their line breaks. A line longer than
 * MAX_RECORD_CHARS, as CSV records have, is given as null, once, and passed over up to its
 * line break: memory stays flat on a file without line breaks.
 */
class Lines {
  private pending = "";
  private line = 0;
  /** The rest of a line given up for its length is being passed over. */
  private skipping = false;

  push(text: string, each: (line: string | null, number: number) => void): void {
    let start = 0;
    if (this.skipping) {
      const lf = text.indexOf("\n");
      if (lf === -1) return;
      this.skipping = false;
      start = lf + 1;
    }
    const all = this.pending.length === 0 ? text : this.pending + text;
    for (let lf = all.indexOf("\n", start); lf !== -1; lf = all.indexOf("\n", start)) {
      const end = all.charCodeAt(lf - 1) === 0x0d ? lf - 1 : lf;
      each(end - start > MAX_RECORD_CHARS ? null : all.slice(start, end), ++this.line);
      start = lf + 1;
    }
    this.pending = all.slice(start);
    if (this.pending.length > MAX_RECORD_CHARS) {
      each(null, ++this.line);
      this.pending = "";
      this.skipping = true;
    }
  }

  end(each: (line: string | null, number: number) => void): void {
    if (this.pending.length > 0) each(this.pending, ++this.line);
    this.pending = "";
    this.skipping = false;
  }
}

/** Each line's kind by itself: an address with "@" is an email address, anything else an IP address. */
function plainRow(line: number, value: string, cells: readonly string[]): Row {
  return value.includes("@") ? { line, email: value, ip: null, cells } : { line, email: null, ip: value, cells };
}

/** A reader of one row per line, each line read by `row`. */
abstract class LineReader implements RowReader {
  abstract readonly kind: InputKind;
  readonly columns = ["input"];
  private readonly lines = new Lines();

  push(text: string, into: InputRow[]): void {
    this.lines.push(text, (line, n) => this.rowOrTooLong(line, n, into));
  }

  end(into: InputRow[]): void {
    this.lines.end((line, n) => this.rowOrTooLong(line, n, into));
  }

  private rowOrTooLong(text: string | null, line: number, into: InputRow[]): void {
    if (text === null) into.push({ line, problem: `a line ${TOO_LONG}` });
    else this.row(text, line, into);
  }

  abstract columnsUsed(): string[];

  protected abstract row(text: string, line: number, into: InputRow[]): void;
}

class PlainLinesReader extends LineReader {
  readonly kind = "lines";

  columnsUsed(): string[] {
    return ["one value per line: an email address when it has an @, else an IP address"];
  }

  protected row(text: string, line: number, into: InputRow[]): void {
    const value = text.trim();
    if (value.length > 0) into.push(plainRow(line, value, [value]));
  }
}

class JsonLinesReader extends LineReader {
  readonly kind = "jsonl";

  /** The keys the values were read from, and the others that looked like such keys. */
  private readonly keys = { email: new KeysSeen(), ip: new KeysSeen() };

  constructor(private readonly choice: ColumnChoice) {
    super();
  }

  columnsUsed(): string[] {
    return [
      describeColumn("email", [...this.keys.email.used], [...this.keys.email.others]),
      describeColumn("IP", [...this.keys.ip.used], [...this.keys.ip.others]),
    ];
  }

  protected row(text: string, line: number, into: InputRow[]): void {
    const json = text.trim();
    if (json.length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch (err) {
      into.push({ line, problem: `not JSON: ${(err as Error).message}` });
      return;
    }
    if (typeof value === "string") {
      into.push(plainRow(line, value.trim(), [json]));
    } else if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const record = value as Record<string, unknown>;
      const email = this.field(record, this.choice.email, looksLikeEmailColumn, this.keys.email);
      into.push({
        line,
        email,
        ip: this.field(record, this.choice.ip, looksLikeIpColumn, this.keys.ip),
        cells: [json],
      });
    } else {
      into.push({ line, problem: "a JSON line must be an object or a string" });
    }
  }

  private field(
    record: Record<string, unknown>,
    named: string | undefined,
    looksLike: (key: string) => boolean,
    seen: KeysSeen,
  ): string | null {
    const wanted = named?.toLowerCase();
    const keys = Object.keys(record);
    const key = keys.find((k) => (wanted === undefined ? seen.looksLike(k, looksLike) : k.toLowerCase() === wanted));
    seen.note(keys, key, looksLike);
    const value = key === undefined ? undefined : record[key];
    if (value === undefined || value === null) return null;
    const text = String(value).trim();
    return text.length === 0 ? null : text;
  }
}

/** The JSON keys of one kind: those read, and the others that looked like them; each set kept small. */
class KeysSeen {
  private static readonly MAX = 20;
  readonly used = new Set<string>();
  readonly others = new Set<string>();
  /** Each key's name checked once: the keys of every line are mostly the same. */
  private readonly looks = new Map<string, boolean>();

  looksLike(key: string, looksLike: (key: string) => boolean): boolean {
    let looks = this.looks.get(key);
    if (looks === undefined) {
      looks = looksLike(key);
      if (this.looks.size < 1_000) this.looks.set(key, looks);
    }
    return looks;
  }

  note(keys: readonly string[], used: string | undefined, looksLike: (key: string) => boolean): void {
    if (used !== undefined && this.used.size < KeysSeen.MAX) {
      this.used.add(used);
      this.others.delete(used);
    }
    for (const key of keys)
      if (key !== used && this.others.size < KeysSeen.MAX && !this.used.has(key) && this.looksLike(key, looksLike))
        this.others.add(key);
  }
}

class CsvReader implements RowReader {
  readonly kind = "csv";
  private readonly records = new CsvRecords();
  private readonly parsed: CsvRecord[] = [];
  private headerSkipped = false;

  constructor(
    readonly columns: readonly string[],
    private readonly found: Columns,
  ) {}

  columnsUsed(): string[] {
    return describeCsvColumns(this.columns, this.found);
  }

  push(text: string, into: InputRow[]): void {
    this.rows(this.records.push(text, this.parsed), into);
  }

  end(into: InputRow[]): void {
    this.rows(this.records.end(this.parsed), into);
  }

  private rows(records: CsvRecord[], into: InputRow[]): void {
    for (const record of records) {
      if (!this.headerSkipped) {
        this.headerSkipped = true;
        continue;
      }
      if ("problem" in record) into.push(record);
      else if (record.fields.length !== this.columns.length)
        into.push({
          line: record.line,
          problem: `${record.fields.length} fields where the header has ${this.columns.length}`,
        });
      else
        into.push({
          line: record.line,
          email: this.value(record.fields, this.found.email),
          ip: this.value(record.fields, this.found.ip),
          cells: record.fields,
        });
    }
    records.length = 0;
  }

  private value(fields: string[], index: number): string | null {
    if (index === -1) return null;
    const text = fields[index].trim();
    return text.length === 0 ? null : text;
  }
}
