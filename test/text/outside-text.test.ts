import { describe, expect, test } from "bun:test";
import { escapeControlCharacters } from "../../src/text/control-characters.ts";
import { spreadsheetCsvField } from "../../src/text/spreadsheet-csv.ts";

describe("escapeControlCharacters", () => {
  test("turns the title, screen-clearing, carriage-return and NUL tricks into visible text", () => {
    expect(escapeControlCharacters("a\x1b]0;owned\x07b\x1b[2Jc\rd\0e")).toBe("a\\x1b]0;owned\\x07b\\x1b[2Jc\\rd\\x00e");
  });

  test("line breaks, tabs, DEL, C1 controls and the bidirectional overrides are escaped too", () => {
    expect(escapeControlCharacters("x\ny\tz\x7f\x9b\u202eexe.pdf\u2028")).toBe(
      "x\\ny\\tz\\x7f\\x9b\\u202eexe.pdf\\u2028",
    );
  });

  test("printable text, wide characters and emoji included, stays as it is", () => {
    for (const text of ["ops@example.com", "田中 — sign-up wave", "🇺🇸 façade", ""])
      expect(escapeControlCharacters(text)).toBe(text);
  });
});

describe("spreadsheetCsvField", () => {
  test.each([
    ["=2+5@gmail.com", "'=2+5@gmail.com"],
    ["+1 555", "'+1 555"],
    ["-cmd", "'-cmd"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\t=1", "'\t=1"],
    ['=HYPERLINK("x")', `"'=HYPERLINK(""x"")"`],
    ["a,b", '"a,b"'],
    ["plain", "plain"],
    ["", ""],
  ])("%p is written as %p", (value, field) => {
    expect(spreadsheetCsvField(value)).toBe(field);
  });
});
