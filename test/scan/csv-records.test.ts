import { describe, expect, test } from "bun:test";
import { type CsvRecord, CsvRecords, MAX_RECORD_CHARS } from "../../src/scan/csv-records.ts";

function parseWhole(text: string): CsvRecord[] {
  const p = new CsvRecords();
  return [...p.push(text), ...p.end()];
}

/** The same text given one character at a time. */
function parseByCharacter(text: string): CsvRecord[] {
  const p = new CsvRecords();
  const out: CsvRecord[] = [];
  for (const c of text) p.push(c, out);
  return [...out, ...p.end()];
}

const SAMPLE =
  'id,name,email\r\n1,"Doe, Jane",jane@example.com\n2,"Bob ""the builder""",bob@example.com\n3,"two\nlines",x@example.com\n\n4,,\n5,last,no-newline@example.com';

describe("CSV records", () => {
  test("quoted fields with commas, doubled quotes and line breaks; CRLF and LF; empty lines skipped; line numbers", () => {
    expect(parseWhole(SAMPLE)).toEqual([
      { line: 1, fields: ["id", "name", "email"] },
      { line: 2, fields: ["1", "Doe, Jane", "jane@example.com"] },
      { line: 3, fields: ["2", 'Bob "the builder"', "bob@example.com"] },
      { line: 4, fields: ["3", "two\nlines", "x@example.com"] },
      { line: 7, fields: ["4", "", ""] },
      { line: 8, fields: ["5", "last", "no-newline@example.com"] },
    ]);
  });

  test("the records do not depend on where the input is cut", () => {
    expect(parseByCharacter(SAMPLE)).toEqual(parseWhole(SAMPLE));
    const crlf = SAMPLE.replaceAll("\n", "\r\n");
    expect(parseByCharacter(crlf)).toEqual(parseWhole(crlf));
    expect(parseWhole(crlf).map((r) => ("fields" in r ? r.fields.length : -1))).toEqual([3, 3, 3, 3, 3, 3]);
  });

  test("a broken record in the middle is reported with its line and costs no other record", () => {
    const text = 'a,b\n1,"x"y,2\n3,"ok",4\n5,6\n';
    const records = parseWhole(text);
    expect(records).toEqual([
      { line: 1, fields: ["a", "b"] },
      { line: 2, problem: 'unexpected "y" after a closing quote' },
      { line: 3, fields: ["3", "ok", "4"] },
      { line: 4, fields: ["5", "6"] },
    ]);
    expect(parseByCharacter(text)).toEqual(records);
  });

  test("a quote never closed is reported at the end", () => {
    expect(parseWhole('a\n"open\nmore')).toEqual([
      { line: 1, fields: ["a"] },
      { line: 2, problem: "a quoted field is never closed" },
    ]);
  });

  test("a record that grows past the limit is given up, and memory with it", () => {
    const p = new CsvRecords();
    const out: CsvRecord[] = [];
    p.push('a\n"never closed', out);
    const piece = `${"x".repeat(64 * 1024)}\n`;
    for (let i = 0; i * piece.length <= MAX_RECORD_CHARS + piece.length; i++) p.push(piece, out);
    expect(out[1]).toMatchObject({ line: 2, problem: expect.stringContaining("quote never closed") });
    expect((p as unknown as { pending: string }).pending.length).toBeLessThan(piece.length);
  });

  test("a quoted field past the limit over many lines is one problem: none of its lines is read as a record, and the next record keeps its line number", () => {
    const field = `${"y".repeat(1000)}\n`.repeat(Math.ceil((2 * MAX_RECORD_CHARS) / 1000));
    const text = `a,b\n1,"${field}"" still quoted\nend",x\n2,after\n`;
    for (const piece of [64 * 1024, 3 * MAX_RECORD_CHARS]) {
      const p = new CsvRecords();
      const out: CsvRecord[] = [];
      for (let i = 0; i < text.length; i += piece) p.push(text.slice(i, i + piece), out);
      p.end(out);
      const lines = text.split("\n").length - 1;
      expect(out).toEqual([
        { line: 1, fields: ["a", "b"] },
        { line: 2, problem: expect.stringContaining("longer than") },
        { line: lines, fields: ["2", "after"] },
      ]);
    }
  });
});
