import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codeDigest } from "../../src/runtime/code-digest.ts";

const dir = mkdtempSync(join(tmpdir(), "rk-code-digest-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
write(
  "entry.ts",
  'import { b } from "./b.ts";\nimport { readFileSync } from "node:fs";\nexport const a = () => b(readFileSync);\n',
);
write("b.ts", 'export { c } from "./sub/c.ts";\nexport const b = (f: unknown) => import("./lazy.ts").then(() => f);\n');
write("lazy.ts", "export const lazy = 1;\n");
write("unrelated.ts", "export const unrelated = 1;\n");
mkdirSync(join(dir, "sub"));
write("sub/c.ts", "export const c = 1;\n");
const digest = () => codeDigest(join(dir, "entry.ts"));

test("a module's digest changes with any module it imports, statically, re-exported or dynamically", () => {
  const seen = new Set([digest()]);
  for (const [file, text] of [
    ["entry.ts", 'import { b } from "./b.ts";\nexport const a = () => b(0);\n'],
    [
      "b.ts",
      'export { c } from "./sub/c.ts";\nexport const b = (f: unknown) => import("./lazy.ts").then(() => [f]);\n',
    ],
    ["sub/c.ts", "export const c = 2;\n"],
    ["lazy.ts", "export const lazy = 2;\n"],
  ]) {
    write(file, text);
    const next = digest();
    expect(seen.has(next), file).toBe(false);
    seen.add(next);
  }
});

test("and not with a module it does not import, nor from one reading to the next", () => {
  const before = digest();
  write("unrelated.ts", "export const unrelated = 2;\n");
  expect(digest()).toBe(before);
});

test("names the version of each package imported and of the packages it depends on", () => {
  const pkg = (name: string, version: string, dependencies: object = {}) => {
    mkdirSync(join(dir, "node_modules", name), { recursive: true });
    write(`node_modules/${name}/package.json`, JSON.stringify({ name, version, dependencies }));
  };
  pkg("listed-names", "1.0.0", { "names-core": "^1.0.0" });
  pkg("names-core", "1.0.0");
  write("uses-package.ts", 'import type { X } from "listed-names/types";\nexport type Y = X;\n');
  const digestOf = () => codeDigest(join(dir, "uses-package.ts"));
  const first = digestOf();
  pkg("names-core", "1.0.1");
  const second = digestOf();
  pkg("listed-names", "1.1.0", { "names-core": "^1.0.0" });
  expect(new Set([first, second, digestOf()]).size).toBe(3);
});

test("import-like text naming a file that is not there is skipped, the real imports beside it followed", () => {
  write("quotes.ts", '// as import("./gone.ts") or from "../nowhere/" would\nexport { lazy } from "./lazy.ts";\n');
  const digestOf = () => codeDigest(join(dir, "quotes.ts"));
  const before = digestOf();
  write("lazy.ts", "export const lazy = 3;\n");
  expect(digestOf()).not.toBe(before);
});
