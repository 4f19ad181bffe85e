import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { scaled } from "./slowness.ts";

const DEBIAN_CHROMIUM = "/usr/bin/chromium";
const CACHE = resolve(
  import.meta.dir,
  "../../node_modules/.cache/sparticuz-chromium",
  pkg.devDependencies["@sparticuz/chromium"],
);

/** What Chromium needs here: root wants --no-sandbox, and the closed network refuses background connections. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * The browser for the end-to-end tests: RISKCHECK_TEST_CHROMIUM if set, else Debian's
 * Chromium when installed, else the one `@sparticuz/chromium` ships in npm.
 */
export async function chromiumExecutable(): Promise<string> {
  const chosen = process.env.RISKCHECK_TEST_CHROMIUM ?? (existsSync(DEBIAN_CHROMIUM) ? DEBIAN_CHROMIUM : null);
  if (chosen !== null) return chosen;
  const executable = join(CACHE, "chromium");
  if (!existsSync(executable)) await unpackInto(CACHE);
  return executable;
}

/**
 * The package unpacks its brotli-compressed browser into `os.tmpdir()` and takes any file
 * already there for a finished one; pointing TMPDIR at a fresh folder in a child process,
 * then renaming it into place, keeps an interrupted unpack from ever being found.
 */
async function unpackInto(dir: string): Promise<void> {
  const staging = `${dir}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const script = 'import chromium from "@sparticuz/chromium"; await chromium.executablePath();';
  const child = Bun.spawn([process.execPath, "-e", script], {
    cwd: import.meta.dir,
    env: { ...process.env, TMPDIR: staging },
    stdout: "ignore",
    stderr: "pipe",
    timeout: scaled(60_000),
    killSignal: "SIGKILL",
  });
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code !== 0) throw new Error(`unpacking @sparticuz/chromium failed (exit ${code}): ${stderr}`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
}
