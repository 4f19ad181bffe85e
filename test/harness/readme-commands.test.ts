import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const readme = readFileSync(resolve(ROOT, "README.md"), "utf8");
const quickStart = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("\n## ", readme.indexOf("## Quick start") + 1));
const commands = [...quickStart.matchAll(/^(npm install && [^#\n]*?)\s*(?:#.*)?$/gm)].map((m) => m[1]);

test("CI runs the README's test command as written there, and that command has an outer time bound", () => {
  const testCommand = commands.find((c) => c.includes("bun test"));
  expect(testCommand).toMatch(/^npm install && timeout -k \d+ \d+ npx bun test$/);
  const ciCommands = readFileSync(resolve(ROOT, ".ci/run"), "utf8").split("\n").filter((line) => line && !line.startsWith("#"));
  expect(ciCommands.at(-1)).toBe(testCommand!);
});

test("the README names the Node.js version, as package.json's engines field does", () => {
  const { engines } = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8"));
  expect(engines.node).toBe(">=20");
  expect(quickStart).toContain("Node.js 20 or newer");
});
