import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { linkTree } from "../../src/datasets/staged-files.ts";
import { SERVE_RUNTIME_FLAGS } from "../../src/app/runtime-flags.ts";
import { stopProcess } from "./deadline.ts";
import { scaled } from "./slowness.ts";
import { BUNDLED_DATA_DIR, FIXTURE_EMAIL_LISTS } from "./bundled-data.ts";

/** The longest a CLI command run by a test may take before it is killed. */
const CLI_DEADLINE_MS = scaled(60_000);

export const CLI = resolve(import.meta.dir, "../../src/cli/main.ts");

/** The npm: sources of the shipped data/sources.json: what every data directory's versions are composed from. */
export const BUNDLED_SOURCES: unknown[] = JSON.parse(
  readFileSync(join(BUNDLED_DATA_DIR, "sources.json"), "utf8"),
).sources.filter((s: { url: string }) => s.url.startsWith("npm:"));

/**
 * A data directory like the one `npm install` fills: the bundled dataset version
 * (hard links, no copy), a sources.json of the bundled sources, the curated files and
 * a fixture operator allowlist.
 */
export function makeDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "riskcheck-data-"));
  const version = basename(readlinkSync(join(BUNDLED_DATA_DIR, "current")));
  linkTree(join(BUNDLED_DATA_DIR, "datasets", version), join(dir, "datasets", version));
  symlinkSync(join("datasets", version), join(dir, "current"));
  symlinkSync(join(BUNDLED_DATA_DIR, "curated"), join(dir, "curated"));
  mkdirSync(join(dir, "email"));
  writeFileSync(join(dir, "email", "allowlist.txt"), `# fixture\n${FIXTURE_EMAIL_LISTS.allow.join("\n")}\n`);
  writeFileSync(join(dir, "sources.json"), JSON.stringify({ sources: BUNDLED_SOURCES }));
  return dir;
}

/** `cwd`: where the command runs (this process's working directory, the project's, unless given). */
export function runCli(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const result = Bun.spawnSync([process.execPath, CLI, ...args], {
    env: { ...process.env, ...env },
    cwd,
    stdin: "ignore",
    timeout: CLI_DEADLINE_MS,
    killSignal: "SIGKILL",
  });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

/** Like runCli, but lets this process's own servers answer the CLI meanwhile; `stdin`: what the command reads. */
export async function runCliAsync(args: string[], env: Record<string, string> = {}, stdin?: string) {
  const proc = Bun.spawn([process.execPath, CLI, ...args], {
    env: { ...process.env, ...env },
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
    timeout: CLI_DEADLINE_MS,
    killSignal: "SIGKILL",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

export interface ServeProcess {
  url: string;
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  output: () => string;
  /** Resolves once the output matches, or rejects after `ms` (on a quiet machine): lines may arrive in separate chunks. */
  waitForOutput: (pattern: RegExp | string, ms?: number) => Promise<void>;
  /** Sends `signal` (SIGTERM unless said), SIGKILL after five seconds: resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number>;
}

/** Starts `riskcheck serve` on a free loopback port, as `bun run start` does, and waits until it says where it listens. */
export async function startServe(
  args: string[],
  env: Record<string, string> = {},
  command = [process.execPath, ...SERVE_RUNTIME_FLAGS, CLI],
): Promise<ServeProcess> {
  const proc = Bun.spawn([...command, "serve", "--host", "127.0.0.1", "--port", "0", ...args], {
    // No test reaches the internet: the refresh is on only where a test points it at its own feed server.
    env: { ...process.env, RISKCHECK_UPDATE_EVERY: "off", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const decoder = new TextDecoder();
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output += decoder.decode(chunk);
  };
  void collect(proc.stdout);
  void collect(proc.stderr);
  // Long enough for two servers starting at once on a loaded two-core machine.
  const deadline = Date.now() + scaled(30_000);
  while (Date.now() < deadline) {
    const match = output.match(/listening on (http:\/\/\S+)/);
    if (match) {
      return {
        url: match[1],
        proc,
        output: () => output,
        waitForOutput: async (pattern, ms = 5_000) => {
          const until = Date.now() + scaled(ms);
          const seen = () => (typeof pattern === "string" ? output.includes(pattern) : pattern.test(output));
          while (!seen()) {
            if (Date.now() > until) throw new Error(`output never matched ${pattern}:\n${output}`);
            await Bun.sleep(10);
          }
        },
        stop: (signal = "SIGTERM") => stopProcess(proc, signal),
      };
    }
    if (proc.exitCode !== null) break;
    await Bun.sleep(20);
  }
  await stopProcess(proc, "SIGKILL");
  throw new Error(`serve did not start:\n${output}`);
}
