import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { OPERATORS, POLICY_FIELDS } from "../../src/assess/policy-fields.ts";
import { REASON_CODES, REASON_WEIGHTS } from "../../src/assess/reason-codes.ts";

/** docs/assess.md's tables of codes and fields say what the code says: a weight or a field changed in one place fails here. */
const page = readFileSync(resolve(import.meta.dir, "../../docs/assess.md"), "utf8");

/** The rows of the table that follows `marker`, as cells without their backquotes. */
function tableAfter(marker: string): string[][] {
  const lines = page.slice(page.indexOf(marker)).split("\n").slice(1);
  const table = lines.slice(
    0,
    lines.findIndex((l) => !l.startsWith("|")),
  );
  return table.slice(2).map((row) =>
    row
      .slice(1, -1)
      .split(" | ")
      .map((cell) => cell.trim().replaceAll("`", "")),
  );
}

test("the reason codes and their weights", () => {
  const rows = tableAfter("<!-- the table below is src/assess/reason-codes.ts");
  expect(rows.map(([code, weight]) => [code, Number(weight)])).toEqual(REASON_CODES.map((c) => [c, REASON_WEIGHTS[c]]));
});

test("the fields, their types, operators and meaning", () => {
  const rows = tableAfter("<!-- the table below is src/assess/policy-fields.ts");
  expect(rows).toEqual(
    POLICY_FIELDS.map((f) => [f.name, f.type, OPERATORS[f.type].join(", "), f.doc.replaceAll("`", "")]),
  );
});
