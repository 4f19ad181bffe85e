import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const readme = readFileSync(resolve(ROOT, "README.md"), "utf8");
const quickStart = readme.slice(
  readme.indexOf("## Quick start"),
  readme.indexOf("\n## ", readme.indexOf("## Quick start") + 1),
);
const commands = [...quickStart.matchAll(/^(npm install && [^#\n]*?)\s*(?:#.*)?$/gm)].map((m) => m[1]);

test("CI runs the README's test command as written there, and that command has an outer time bound", () => {
  const testCommand = commands.find((c) => c.includes("bun test"));
  expect(testCommand).toMatch(
    /^npm install && timeout -k \d+ \d+ npx bun test --parallel=6 --timings=test\/timings\.json$/,
  );
  const ciCommands = readFileSync(resolve(ROOT, ".ci/run"), "utf8")
    .split("\n")
    .filter((line) => line && !line.startsWith("#"));
  // The README's command installs; CI installs nothing else, then type-checks and lints what it installed.
  expect(ciCommands.filter((line) => line.includes("npm install"))).toEqual([testCommand!]);
  expect(ciCommands.slice(ciCommands.indexOf(testCommand!) + 1)).toEqual(["npm run typecheck", "npm run lint"]);
});

test("the README names the Node.js version, as package.json's engines field does", () => {
  const { engines } = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8"));
  expect(engines.node).toBe(">=20");
  expect(quickStart).toContain("Node.js 20 or newer");
});

test("the quick start creates a first key with a command that parses as written, by the tables the binary uses", async () => {
  const { COMMAND_SPECS } = await import("../../src/cli/dispatch.ts");
  const { parseCommandLine } = await import("../../src/cli/command-spec.ts");
  const cliLines = [...quickStart.matchAll(/^npx bun src\/cli\/main\.ts ([^#\n]*?)\s*(?:#.*)?$/gm)].map((m) =>
    m[1]!.split(" ").map((w) => w.replace(/^"(.*)"$/, "$1")),
  );
  expect(cliLines.length).toBeGreaterThan(0);
  for (const words of cliLines) {
    const spec = COMMAND_SPECS.find((c) => words.join(" ").startsWith(`${c.name} `));
    expect(spec?.name).toBe("keys create");
    expect(() => parseCommandLine(spec!, words.slice(spec!.name.split(" ").length))).not.toThrow();
  }
});

test("the README's example requests name only paths the OpenAPI document describes", async () => {
  const { openApiJson } = await import("../../src/http/openapi-document.ts");
  const asked = [...readme.matchAll(/http:\/\/127\.0\.0\.1:8080(\/[\w/.:-]*)/g)].map((m) => m[1]!);
  // A documented path's {parameter} stands for one segment of the example's.
  const matches = (documented: string, path: string) =>
    new RegExp(`^${documented.replace(/\{\w+\}/g, "[^/]+")}$`).test(path);
  const documented = Object.keys(JSON.parse(openApiJson()).paths);
  expect(asked.filter((path) => !documented.some((d) => matches(d, path)))).toEqual([]);
  expect(documented.filter((d) => !asked.some((path) => matches(d, path)))).toEqual([]);
});

test("the README stays short: what riskcheck is, the quick start, examples and links; the manual is in docs/", () => {
  expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(13 * 1024);
});
