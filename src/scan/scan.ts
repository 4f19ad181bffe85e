import type { Snapshot } from "../datasets/snapshot.ts";
import type { ColumnChoice } from "./input-columns.ts";
import { type InputRow, type RowReader, openRowReader } from "./input-rows.ts";
import { Answers, reputationOf } from "../checks/answers.ts";
import { type OutputFormat, type RowFormat, rowFormat } from "./scan-output.ts";
import type { LocalReportView } from "../ip/verdict/local-reports.ts";
import { ScanSummary } from "./scan-summary.ts";

export interface ScanOptions {
  /** By default JSON Lines for JSON Lines input, CSV otherwise. */
  readonly format?: OutputFormat;
  readonly explain: boolean;
  /** Write only rows with a disposable address or a risky IP address. */
  readonly onlyRisky: boolean;
  readonly columns: ColumnChoice;
  /** This appliance's own abuse reports (the verdict's `local` source), as the server counts them; none when null. */
  readonly localReports?: LocalReportView | null;
}

/** Where the output goes; a write that returns a promise is waited for before more input is read. */
export interface ScanSink {
  write(text: string): void | Promise<void>;
}

/** The input cannot be scanned as asked (no email or IP column, a named column missing): the user's to fix. */
export class ScanInputError extends Error {}

/**
 * Rows between requests for a garbage collection. Each row leaves a few short-lived objects and
 * strings; left to itself the collector lets them pile up to several times the snapshot's size
 * (RSS 600–800 MB over a million rows), asked every so many rows it keeps the process near 400 MB.
 */
const ROWS_PER_COLLECTION = 50_000;

/** A first line longer than this is taken as it is: no header is that long. */
const MAX_FIRST_LINE = 1 << 20;

/**
 * Checks every row of `input` with the snapshot and writes the rows with their answers to
 * `sink`, one piece of input at a time: memory stays flat whatever the input's length.
 * `progress` is told the rows and bytes done after each piece.
 */
export async function scan(
  input: AsyncIterable<Uint8Array>,
  sink: ScanSink,
  snapshot: Snapshot,
  options: ScanOptions,
  progress?: (rows: number, bytes: number) => void,
): Promise<ScanSummary> {
  const summary = new ScanSummary();
  const answers = new Answers(snapshot, options.explain, options.localReports ?? null);
  const decoder = new TextDecoder("utf-8");
  const rows: InputRow[] = [];
  let opened: { reader: RowReader; format: RowFormat } | null = null;
  let head = "";
  let bytes = 0;
  let collectAt = ROWS_PER_COLLECTION;

  const open = (firstLine: string) => {
    const reader = openRowReader(firstLine, options.columns);
    if (typeof reader === "string") throw new ScanInputError(reader);
    const format = rowFormat(options.format ?? (reader.kind === "jsonl" ? "jsonl" : "csv"), reader, answers);
    return { reader, format };
  };
  const write = async (text: string) => {
    if (text.length > 0) await sink.write(text);
  };

  const written = (): string => {
    const { format } = opened!;
    let out = "";
    for (const row of rows) {
      summary.rows++;
      if ("problem" in row) {
        summary.badRows++;
        if (options.onlyRisky) continue;
        out += format.bad(row);
        summary.written++;
        continue;
      }
      const email = row.email === null ? null : answers.email(row.email);
      const ip = row.ip === null ? null : answers.ip(row.ip);
      if (email !== null) summary.email(email);
      if (ip !== null) summary.ip(ip);
      if (options.onlyRisky && !(email !== null && "is_disposable" in email && email.is_disposable) && !(ip !== null && "parsed" in ip && reputationOf(ip).risky)) continue;
      out += format.row(row, { email, ip });
      summary.written++;
    }
    rows.length = 0;
    return out;
  };

  for await (const chunk of input) {
    bytes += chunk.byteLength;
    let text = decoder.decode(chunk, { stream: true });
    if (opened === null) {
      head += text;
      const lf = head.indexOf("\n");
      if (lf === -1 && head.length < MAX_FIRST_LINE) continue;
      opened = open(lf === -1 ? head : head.slice(0, lf));
      await write(opened.format.header());
      text = head;
      head = "";
    }
    opened.reader.push(text, rows);
    await write(written());
    progress?.(summary.rows, bytes);
    if (summary.rows >= collectAt) {
      collectAt = summary.rows + ROWS_PER_COLLECTION;
      Bun.gc(false);
    }
  }
  // `head` holds the whole input when it never had a line break.
  const rest = head + decoder.decode();
  if (opened === null) {
    if (rest.trim().length === 0) return summary;
    opened = open(rest.split("\n", 1)[0]);
    await write(opened.format.header());
  }
  if (rest.length > 0) opened.reader.push(rest, rows);
  opened.reader.end(rows);
  await write(written());
  progress?.(summary.rows, bytes);
  return summary;
}
