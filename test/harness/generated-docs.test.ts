import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { COMMAND_SPECS } from "../../src/cli/dispatch.ts";
import type { CommandSpec } from "../../src/cli/command-spec.ts";
import {
  GENERATED_DOCS,
  generatedRegion,
  replaceGeneratedRegion,
  settings,
  synopsisBlock,
} from "../../scripts/markdown-reference.ts";

const ROOT = resolve(import.meta.dir, "../..");

test.each(GENERATED_DOCS.flatMap(({ file, regions }) => regions.map((r) => [file, r.name, r] as const)))(
  "%s: the %s part is what `bun run docs` writes from the command tables",
  (file, _name, region) => {
    const text = readFileSync(resolve(ROOT, file), "utf8");
    const written = generatedRegion(text, region.name);
    expect(written).not.toBeNull();
    // On a difference: run `bun run docs` and commit what it writes.
    expect(written!).toBe(region.render(COMMAND_SPECS));
  },
);

test("every setting with a variable is in the configuration table once, with its flag and default", () => {
  const table = generatedRegion(readFileSync(resolve(ROOT, "docs/configuration.md"), "utf8"), "settings")!;
  const rows = table.split("\n").filter((l) => l.startsWith("| `"));
  const variables = new Set<string>();
  for (const c of COMMAND_SPECS) {
    for (const f of c.flags) if (f.env) variables.add(f.env);
    for (const v of c.environment ?? []) variables.add(v.name);
  }
  expect(rows.map((r) => /^\| `([A-Z_]+)`/.exec(r)?.[1]).sort()).toEqual([...variables].sort());
  expect(rows.find((r) => r.startsWith("| `RISKCHECK_PORT`"))).toStartWith("| `RISKCHECK_PORT` | `--port` | `8080` |");
  expect(rows.find((r) => r.startsWith("| `RISKCHECK_DATA_DIR`"))).toContain("every command but `version`");
});

const spec = (name: string, flags: CommandSpec["flags"], environment?: CommandSpec["environment"]): CommandSpec => ({
  name,
  summary: "s",
  flags,
  environment,
  examples: [],
});

test("one variable described two ways by two commands is an error, not two rows", () => {
  const a = spec("a", [{ name: "x", type: "string", value: "N", env: "X", default: "1", description: "d" }]);
  const b = spec("b", [{ name: "x", type: "string", value: "N", env: "X", default: "2", description: "d" }]);
  expect(() => settings([a, b])).toThrow("X is described two ways, by a and b");
  expect(settings([a, a]).map((s) => s.commands)).toEqual([["a", "a"]]);
});

test("the synopsis shows the database's three flags as DATABASE, and a new flag as soon as it exists", () => {
  const database = [
    { name: "data-dir", type: "string", value: "DIR", description: "" },
    { name: "db", type: "string", value: "FILE", description: "" },
    { name: "database-url", type: "string", value: "URL", description: "" },
  ] as const;
  const block = synopsisBlock([
    spec("keys list", [{ name: "json", type: "boolean", description: "" }, ...database]),
    spec("update", [database[0], { name: "only", type: "string", value: "NAMES", required: true, description: "" }]),
  ]);
  expect(block.split("\n").slice(0, 2)).toEqual([
    "riskcheck keys list  [--json] [DATABASE]",
    "riskcheck update     [--data-dir DIR] --only NAMES",
  ]);
});

test("a region is replaced between its markers and nowhere else", () => {
  const doc =
    "a\n<!-- generated: t (bun run docs; edit the command tables in src/cli/, not this) -->old<!-- end: t -->\nb";
  expect(replaceGeneratedRegion(doc, "t", "\nnew\n")).toBe(doc.replace("old", "\nnew\n"));
  expect(() => replaceGeneratedRegion("no markers", "t", "x")).toThrow();
});
