/**
 * RFC 4180 records from text that arrives in pieces: fields separated by commas, records by
 * CRLF or LF, a field in double quotes may hold commas, line breaks and doubled quotes.
 * A record that breaks the rules (text after a closing quote, a quote never closed) is
 * reported with its line and skipped to the end of its line, so one bad record costs no other;
 * one that grows past MAX_RECORD_CHARS is reported once and skipped to the next line break.
 */
export type CsvRecord =
  | { readonly line: number; readonly fields: string[] }
  | { readonly line: number; readonly problem: string };

/** No real record or line is this long; holding more would make memory grow with the input. */
export const MAX_RECORD_CHARS = 1 << 20;

export const TOO_LONG = `longer than ${MAX_RECORD_CHARS} characters (a quote never closed, or no text file?)`;

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;

export class CsvRecords {
  /** Text received but not yet a complete record. */
  private pending = "";
  /** The line the pending text starts on. */
  private line = 1;
  /** The rest of a record given up for its length is being passed over (`quoted`: inside a quoted field); null when not. */
  private skipping: { quoted: boolean } | null = null;

  /** The records completed by `text`. */
  push(text: string, into: CsvRecord[] = []): CsvRecord[] {
    if (this.skipping !== null) {
      const rest = this.passOver(text, this.skipping);
      if (rest === null) return into;
      text = rest;
    }
    this.pending = this.pending.length === 0 ? text : this.pending + text;
    this.take(false, into);
    return into;
  }

  /** The last record, which needs no line break at its end. */
  end(into: CsvRecord[] = []): CsvRecord[] {
    this.skipping = null;
    this.take(true, into);
    return into;
  }

  private take(final: boolean, into: CsvRecord[]): void {
    const text = this.pending;
    let start = 0;
    while (start < text.length) {
      const record = parseRecord(text, start, this.line, final);
      if (record === null) break;
      if (record.record !== null)
        into.push(
          record.next - start > MAX_RECORD_CHARS
            ? { line: record.record.line, problem: `a record ${TOO_LONG}` }
            : record.record,
        );
      this.line += record.lines;
      start = record.next;
    }
    this.pending = start === 0 ? text : text.slice(start);
    if (this.pending.length > MAX_RECORD_CHARS) {
      // Give up on this record rather than hold the rest of the input; no piece of it is read as a record of its own.
      into.push({ line: this.line, problem: `a record ${TOO_LONG}` });
      const rest = final ? null : this.passOver(this.pending, { quoted: false });
      this.pending = "";
      if (rest !== null) this.push(rest, into);
    }
  }

  /**
   * Passes over `text` up to the end of the record given up: the first line break outside
   * quotes (quotes counted from the record's start, as the parser counts them). Returns the
   * text after it, or null when `text` ends first (`state` then holds where it stopped).
   */
  private passOver(text: string, state: { quoted: boolean }): string | null {
    this.skipping = state;
    for (let i = 0; ; ) {
      const quote = text.indexOf('"', i);
      if (state.quoted) {
        this.line += countLines(text, i, quote === -1 ? text.length : quote);
        if (quote === -1) return null;
        state.quoted = false;
        i = quote + 1;
        continue;
      }
      const lf = text.indexOf("\n", i);
      if (quote !== -1 && (lf === -1 || quote < lf)) {
        state.quoted = true;
        i = quote + 1;
        continue;
      }
      if (lf === -1) return null;
      this.line++;
      this.skipping = null;
      return text.slice(lf + 1);
    }
  }
}

interface Parsed {
  /** Null for an empty line, which is no record. */
  readonly record: CsvRecord | null;
  readonly next: number;
  /** Line breaks consumed. */
  readonly lines: number;
}

/** The record at `start`, or null when the text ends before it does (and more may come). */
function parseRecord(text: string, start: number, line: number, final: boolean): Parsed | null {
  const fields: string[] = [];
  let i = start;
  let lines = 0;
  const bad = (problem: string): Parsed | null => {
    const lf = text.indexOf("\n", i);
    if (lf === -1 && !final) return null;
    const next = lf === -1 ? text.length : lf + 1;
    return { record: { line, problem }, next, lines: lines + (lf === -1 ? 0 : 1) };
  };
  if (text.charCodeAt(i) === LF || (text.charCodeAt(i) === CR && text.charCodeAt(i + 1) === LF)) {
    const next = text.charCodeAt(i) === LF ? i + 1 : i + 2;
    return { record: null, next, lines: 1 };
  }
  while (true) {
    if (text.charCodeAt(i) === QUOTE) {
      let value = "";
      let from = i + 1;
      while (true) {
        const close = text.indexOf('"', from);
        if (close === -1) {
          if (!final) return null;
          return {
            record: { line, problem: "a quoted field is never closed" },
            next: text.length,
            lines: lines + countLines(text, from, text.length),
          };
        }
        if (close + 1 === text.length && !final) return null;
        lines += countLines(text, from, close);
        if (text.charCodeAt(close + 1) === QUOTE) {
          value += text.slice(from, close + 1);
          from = close + 2;
          continue;
        }
        value += text.slice(from, close);
        i = close + 1;
        break;
      }
      fields.push(value);
    } else {
      let j = i;
      for (; j < text.length; j++) {
        const c = text.charCodeAt(j);
        if (c === COMMA || c === LF || (c === CR && text.charCodeAt(j + 1) === LF)) break;
      }
      if (j === text.length && !final) return null;
      // A CR at the very end of what has arrived may be the first half of CRLF.
      if (j === text.length - 1 && text.charCodeAt(j) === CR && !final) return null;
      fields.push(text.slice(i, j));
      i = j;
    }
    const c = text.charCodeAt(i);
    if (i >= text.length) return { record: { line, fields }, next: i, lines };
    if (c === COMMA) {
      i++;
      if (i === text.length && !final) return null;
      continue;
    }
    if (c === LF) return { record: { line, fields }, next: i + 1, lines: lines + 1 };
    if (c === CR && text.charCodeAt(i + 1) === LF) return { record: { line, fields }, next: i + 2, lines: lines + 1 };
    if (c === CR && i + 1 === text.length && !final) return null;
    return bad(`unexpected ${JSON.stringify(text[i])} after a closing quote`);
  }
}

function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let k = text.indexOf("\n", from); k !== -1 && k < to; k = text.indexOf("\n", k + 1)) n++;
  return n;
}
