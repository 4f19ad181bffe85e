import { expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import pkg from "../../package.json" with { type: "json" };

const ROOT = resolve(import.meta.dir, "../..");
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall"] as const;

/** Every package folder under node_modules, scoped and nested ones included. */
function* packagesIn(modules: string): Generator<string> {
  if (!existsSync(modules)) return;
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith(".")) continue;
    const folders = entry.startsWith("@") ? readdirSync(join(modules, entry)).map((n) => join(entry, n)) : [entry];
    for (const folder of folders) {
      yield join(modules, folder);
      yield* packagesIn(join(modules, folder, "node_modules"));
    }
  }
}

// npm 11.16+ lists, at the end of every install, each dependency whose install script the
// package.json's allowScripts does not name (and npm 12 skips those scripts): bun's own
// postinstall is what makes `npx bun` run.
test("every installed package with an install script is named in allowScripts, so npm install warns of none", () => {
  const allowed: Record<string, boolean> = pkg.allowScripts;
  const unreviewed: string[] = [];
  for (const folder of packagesIn(join(ROOT, "node_modules"))) {
    const manifest = join(folder, "package.json");
    if (!existsSync(manifest)) continue;
    const { name, version, scripts = {} } = JSON.parse(readFileSync(manifest, "utf8"));
    // true: allowed after review; false: denied after review (a script that would fetch from the internet).
    if (
      INSTALL_SCRIPTS.some((s) => scripts[s]) &&
      allowed[name] === undefined &&
      allowed[`${name}@${version}`] === undefined
    )
      unreviewed.push(`${name}@${version}`);
  }
  expect(unreviewed).toEqual([]);
});
