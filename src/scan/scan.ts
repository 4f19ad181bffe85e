import { assessmentFacts } from "../assess/assessment-facts.ts";
import { type Assessment, assess } from "../assess/assessment.ts";
import type { CompiledPolicy } from "../assess/compiled-policy.ts";
import type { Snapshot } from "../datasets/snapshot.ts";
import { MAX_RECORD_CHARS } from "./csv-records.ts";
import type { ColumnChoice } from "./input-columns.ts";
import { type InputRow, type RowReader, openRowReader } from "./input-rows.ts";
import { Answers, type IpChecked, reputationOf } from "../checks/answers.ts";
import type { ItemError } from "../checks/item-error.ts";
import type { EmailAnswer } from "../email/email-answer-schema.ts";
import { type OutputFormat, type RowFormat, rowFormat } from "./scan-output.ts";
import type { LocalReportView } from "../ip/verdict/local-reports.ts";
import { ScanSummary } from "./scan-summary.ts";
import type { MailEvidence } from "../email/mail-evidence.ts";

export interface ScanOptions {
  /** By default JSON Lines for JSON Lines input, CSV otherwise. */
  readonly format?: OutputFormat;
  readonly explain: boolean;
  /** Write only rows with a disposable address or a risky IP address. */
  readonly onlyRisky: boolean;
  readonly columns: ColumnChoice;
  /** This appliance's own abuse reports (the verdict's `local` source), as the server counts them; none when null. */
  readonly localReports?: LocalReportView | null;
  /** With `--policy`: each row decided as POST /v1/assess decides, with this event label; none when null or absent. */
  readonly policy?: { readonly compiled: CompiledPolicy; readonly event: string | null } | null;
  /** DNS evidence, as the server has it (RISKCHECK_DNS_RESOLVER); none when null or absent. */
  readonly mail?: MailEvidence | null;
}

/** Where the output goes; a write that returns a promise is waited for before more input is read. */
export interface ScanSink {
  write(text: string): void | Promise<void>;
}

/** The input cannot be scanned as asked (no email or IP column, a named column missing): the user's to fix. */
export class ScanInputError extends Error {}

/**
 * Rows between full garbage collections. Each row leaves a few short-lived objects and strings;
 * left to itself the collector lets them pile up to several times the snapshot's size (RSS
 * 600–800 MB over a million rows). A collection only requested (`Bun.gc(false)`) runs when the
 * collector gets to it, so what piled up depended on timing (297–313 MB peak on a loaded
 * machine, 484 MB reported on a quiet one); a synchronous one every 50,000 rows bounds it to
 * what those rows leave, whatever the timing, for a pause of tens of milliseconds (docs/benchmarks.md).
 */
const ROWS_PER_COLLECTION = 50_000;

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
  const policy = options.policy ?? null;
  const summary = new ScanSummary(policy?.compiled ?? null);
  const mail = options.mail ?? null;
  const answers = new Answers(snapshot, options.explain, options.localReports ?? null, mail);
  /** A row with a value, none of them invalid, as the assess endpoint would decide it; null for any other. */
  const decided = (email: EmailAnswer | ItemError | null, ip: IpChecked | ItemError | null): Assessment | null => {
    if ((email === null && ip === null) || (email !== null && "error" in email) || (ip !== null && "error" in ip))
      return null;
    return assess(policy!.compiled, assessmentFacts(snapshot, email, ip, policy!.event));
  };
  const rows: InputRow[] = [];
  let opened: { reader: RowReader; format: RowFormat } | null = null;
  let head = "";
  let bytes = 0;
  let collectAt = ROWS_PER_COLLECTION;

  const open = (firstLine: string) => {
    const reader = openRowReader(firstLine, options.columns);
    if (typeof reader === "string") throw new ScanInputError(reader);
    const format = rowFormat(
      options.format ?? (reader.kind === "jsonl" ? "jsonl" : "csv"),
      reader,
      answers,
      policy !== null,
    );
    return { reader, format };
  };
  const write = async (text: string) => {
    if (text.length > 0) await sink.write(text);
  };

  /**
   * Each row's email answer; with DNS evidence, the rows no list decides looked up together,
   * never more at once than the cap on lookups in flight (a scan waits for room rather than
   * answer a row from the lists alone).
   */
  const emailsOf = async (): Promise<(EmailAnswer | ItemError | null)[]> => {
    const emails = rows.map((row) => ("problem" in row || row.email === null ? null : answers.email(row.email)));
    if (mail === null) return emails;
    let pending: Promise<void>[] = [];
    for (let i = 0; i < emails.length; i++) {
      const email = emails[i];
      if (email === null || "error" in email) continue;
      if (!mail.hasRoom) {
        await Promise.all(pending);
        pending = [];
      }
      const checked = answers.withMail(email);
      if (checked instanceof Promise)
        pending.push(
          checked.then((a) => {
            emails[i] = a;
          }),
        );
      else emails[i] = checked;
    }
    await Promise.all(pending);
    return emails;
  };

  const written = async (): Promise<string> => {
    const { format } = opened!;
    const emails = await emailsOf();
    let out = "";
    for (const [i, row] of rows.entries()) {
      summary.rows++;
      if ("problem" in row) {
        summary.badRows++;
        if (policy !== null) summary.decision(null);
        if (options.onlyRisky) continue;
        out += format.bad(row);
        summary.written++;
        continue;
      }
      const email = emails[i];
      const ip = row.ip === null ? null : answers.ip(row.ip);
      if (email !== null) summary.email(email);
      if (ip !== null) summary.ip(ip);
      const assessment = policy === null ? undefined : decided(email, ip);
      if (assessment !== undefined) summary.decision(assessment);
      if (
        options.onlyRisky &&
        !(email !== null && "is_disposable" in email && email.is_disposable) &&
        !(ip !== null && "parsed" in ip && reputationOf(ip).risky)
      )
        continue;
      out += format.row(row, { email, ip, assessment });
      summary.written++;
    }
    rows.length = 0;
    return out;
  };

  const text = decodedText(input);
  for await (let piece of text) {
    bytes = text.bytes;
    if (opened === null) {
      head += piece;
      const lf = head.indexOf("\n");
      if (lf === -1 && head.length < MAX_RECORD_CHARS) continue;
      opened = open(lf === -1 ? head : head.slice(0, lf));
      await write(opened.format.header());
      piece = head;
      head = "";
    }
    opened.reader.push(piece, rows);
    await write(await written());
    progress?.(summary.rows, bytes);
    if (summary.rows >= collectAt) {
      collectAt = summary.rows + ROWS_PER_COLLECTION;
      Bun.gc(true);
    }
  }
  // `head` holds the whole input when it never had a line break.
  const rest = head;
  if (opened === null) {
    if (rest.trim().length === 0) return summary;
    opened = open(rest.split("\n", 1)[0]);
    await write(opened.format.header());
  }
  if (rest.length > 0) opened.reader.push(rest, rows);
  opened.reader.end(rows);
  await write(await written());
  summary.columns = opened.reader.columnsUsed();
  progress?.(summary.rows, bytes);
  return summary;
}

/** Byte order marks, longest first: UTF-32's little-endian one starts like UTF-16's. */
const BOMS: readonly [string, number[], "utf-8" | "utf-16le" | "utf-16be" | null][] = [
  ["UTF-32", [0xff, 0xfe, 0, 0], null],
  ["UTF-32", [0, 0, 0xfe, 0xff], null],
  ["UTF-8", [0xef, 0xbb, 0xbf], "utf-8"],
  ["UTF-16", [0xff, 0xfe], "utf-16le"],
  ["UTF-16", [0xfe, 0xff], "utf-16be"],
];

const startsWith = (bytes: Uint8Array, prefix: number[]) => prefix.every((b, i) => bytes[i] === b);

/** The decoder its first bytes call for: UTF-8 (with its BOM or none), UTF-16 with its BOM. */
function decoderFor(head: Uint8Array): TextDecoder {
  const bom = BOMS.find(([, prefix]) => startsWith(head, prefix));
  if (bom !== undefined && bom[2] === null)
    throw new ScanInputError(
      `the input is ${bom[0]} (its byte order mark says so): scan reads UTF-8 or UTF-16; convert it first, e.g. ` +
        `iconv -f ${bom[0]} -t UTF-8`,
    );
  // Every other byte zero in the first four: UTF-16 or UTF-32 text without its byte order mark.
  if (
    bom === undefined &&
    head.length >= 4 &&
    (head[0] === 0) !== (head[1] === 0) &&
    (head[2] === 0) !== (head[3] === 0)
  ) {
    throw new ScanInputError(
      "the input looks like UTF-16 or UTF-32 without a byte order mark: scan reads UTF-8, or UTF-16 with its " +
        "mark; convert it first, e.g. iconv -f UTF-16LE -t UTF-8",
    );
  }
  return new TextDecoder(bom?.[2] ?? "utf-8", { fatal: true });
}

/**
 * The input as text, piece by piece, with `bytes` read so far: UTF-8 or UTF-16 as its byte
 * order mark says (the mark dropped). UTF-32 and bytes that are not valid text are refused with a
 * ScanInputError rather than checked as garbage.
 */
function decodedText(input: AsyncIterable<Uint8Array>): AsyncIterable<string> & { bytes: number } {
  const state = {
    bytes: 0,
    async *[Symbol.asyncIterator]() {
      let decoder: TextDecoder | null = null;
      let head: Uint8Array = new Uint8Array(0);
      const decode = (chunk?: Uint8Array) => {
        try {
          return decoder!.decode(chunk, { stream: chunk !== undefined });
        } catch {
          throw new ScanInputError(
            `the input is not valid ${decoder!.encoding.toUpperCase()}: an invalid byte sequence within its first ` +
              `${state.bytes} bytes; convert it first, e.g. iconv -f LATIN1 -t UTF-8`,
          );
        }
      };
      for await (const chunk of input) {
        state.bytes += chunk.byteLength;
        if (decoder !== null) {
          yield decode(chunk);
          continue;
        }
        head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
        if (head.length < 4) continue;
        decoder = decoderFor(head);
        yield decode(head);
      }
      if (decoder === null) {
        // An input shorter than a byte order mark.
        decoder = decoderFor(head);
        yield decode(head);
      }
      yield decode();
    },
  };
  return state;
}
