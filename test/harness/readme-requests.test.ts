import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type ServeProcess, makeDataDir, startServe } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// Real processes: the CLI through npx as the README writes it, the server, curl.
setDefaultTimeout(scaled(60_000));

const ROOT = resolve(import.meta.dir, "../..");
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const section = (title: string) => {
  const start = readme.indexOf(`## ${title}`);
  return readme.slice(start, readme.indexOf("\n## ", start + 1));
};

/** The `$ ` commands of the "One request per endpoint" block (continuation lines joined), each with the output printed under it. */
function examples(): { command: string; output: string }[] {
  const block = /```sh\n([\s\S]*?)```/.exec(section("One request per endpoint"))![1]!;
  const found: { command: string; output: string }[] = [];
  const lines = block.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith("$ ")) continue;
    let command = lines[i]!.slice(2);
    while (command.endsWith("\\")) command = `${command.slice(0, -1)} ${lines[++i]!.trim()}`;
    const output: string[] = [];
    while (i + 1 < lines.length && lines[i + 1] !== "" && !lines[i + 1]!.startsWith("$ ")) output.push(lines[++i]!);
    found.push({ command, output: output.join("\n") });
  }
  return found;
}

/** The project's folder as a user has it: src/, package.json, node_modules, and data/ (a fresh copy of the bundled data). */
const folder = mkdtempSync(join(tmpdir(), "riskcheck-readme-"));
for (const name of ["src", "package.json", "node_modules"]) symlinkSync(join(ROOT, name), join(folder, name));
symlinkSync(makeDataDir(), join(folder, "data"));

function sh(command: string, env: Record<string, string> = {}) {
  const result = Bun.spawnSync(["sh", "-c", command], {
    cwd: folder,
    env: { ...process.env, ...env },
    stdin: "ignore",
    timeout: scaled(45_000),
    killSignal: "SIGKILL",
  });
  // npm's own warnings about this machine's npm configuration are not the project's.
  const stderr = result.stderr
    .toString()
    .split("\n")
    .filter((line) => line && !line.startsWith("npm warn"))
    .join("\n");
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr };
}

let server: ServeProcess;
let key: string;
beforeAll(async () => {
  // The quick start's key, made with its command as written.
  const create = /^(npx bun src\/cli\/main\.ts keys create [^#\n]*?)\s*#/m.exec(section("Quick start"))![1]!;
  const made = sh(create);
  expect(made.code).toBe(0);
  key = made.stdout.trimEnd().split("\n").at(-1)!;
  server = await startServe(["--data-dir", join(folder, "data")]);
}, scaled(90_000));
afterAll(async () => {
  await server?.stop();
});

// curl is what the README uses; a machine without it cannot run the README either.
describe.skipIf(!Bun.which("curl"))("the README's example requests work as written, in the order written", () => {
  test('each is answered as the README says and prints what it shows (to the "…"), with the quick start\'s key as KEY', () => {
    const env: Record<string, string> = { KEY: key };
    const found = examples();
    expect(found.some((e) => e.command.includes("/v1/reports"))).toBe(true);
    for (const { command, output } of found) {
      const local = command.replaceAll("http://127.0.0.1:8080", server.url);
      // A variable set by one command (REPORTER=$(…)) is used by the next, as in the user's shell.
      const assignment = /^(\w+)=\$\((.*)\)$/.exec(local);
      if (assignment) {
        const run = sh(`printf %s "$(${assignment[2]})"`, env);
        expect({ command, code: run.code, stderr: run.stderr }).toEqual({ command, code: 0, stderr: "" });
        env[assignment[1]!] = run.stdout;
        expect(run.stdout).toStartWith("rk_");
        continue;
      }
      // Each request is answered as the README says: a success, or the status its comment names ("# 204").
      const [, request, comment] = /^(.*?)(?:\s+#\s*(.*))?$/.exec(local)!;
      const run = sh(`${request} -w '\n%{http_code}'`, env);
      expect({ command, code: run.code, stderr: run.stderr }).toEqual({ command, code: 0, stderr: "" });
      const body = run.stdout.slice(0, run.stdout.lastIndexOf("\n"));
      const status = Number(run.stdout.slice(run.stdout.lastIndexOf("\n") + 1));
      if (/^\d{3}$/.test(comment ?? "")) expect({ command, status }).toEqual({ command, status: Number(comment) });
      else expect({ command, status: Math.floor(status / 100) }).toEqual({ command, status: 2 });
      if (output === "") {
        if (status !== 204) expect(body.length).toBeGreaterThan(0);
        continue;
      }
      if (output.includes("…")) expect(JSON.parse(body)).toBeObject();
      else expect({ command, answer: JSON.parse(body) }).toEqual({ command, answer: JSON.parse(output) });
    }
  });
});
