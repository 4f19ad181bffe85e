/**
 * `bun run docs`: writes the manual's parts that the command tables say — the README's
 * synopsis and docs/configuration.md's tables — from src/cli/. test/harness/generated-docs.test.ts
 * fails while they differ from what this writes.
 */
import { resolve } from "node:path";
import { COMMAND_SPECS } from "../src/cli/dispatch.ts";
import { GENERATED_DOCS, replaceGeneratedRegion } from "./markdown-reference.ts";

const ROOT = resolve(import.meta.dir, "..");
for (const { file, regions } of GENERATED_DOCS) {
  const path = resolve(ROOT, file);
  const before = await Bun.file(path).text();
  const after = regions.reduce(
    (text, region) => replaceGeneratedRegion(text, region.name, region.render(COMMAND_SPECS)),
    before,
  );
  if (after !== before) await Bun.write(path, after);
  console.log(`${file}: ${after === before ? "up to date" : "rewritten"}`);
}
