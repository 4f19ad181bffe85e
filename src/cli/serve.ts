import type { ParsedCommandLine } from "./command-spec.ts";
import type { SERVE } from "./commands.ts";
import { loadConfig } from "../app/config.ts";
import { MAX_HTTP_HEADER_BYTES, SERVE_RUNTIME_FLAGS } from "../app/runtime-flags.ts";
import { type Log, startServer } from "../app/server.ts";
import { packageScriptLaunchers, watchLaunchers } from "../runtime/launchers.ts";
import type { RunContext } from "./start-serve-load.ts";
import { ensureDatasets } from "../datasets/baseline/install-baseline.ts";

const log: Log = {
  info: (line) => console.log(line),
  error: (line) => console.error(line),
};

/** `serve`'s exit status: none, the process goes on until a signal stops it. */
const KEEP_RUNNING = -1;

/**
 * Bun's limit on a request's URL and headers. Every flag that sets it is in process.execArgv (the command line's,
 * BUN_OPTIONS', the binary's own): when SERVE_RUNTIME_FLAGS' is the only one, the limit is theirs; otherwise
 * node:http says, imported only then (at the top of the bundle it cost every start ~2 ms).
 */
async function headerLimit(): Promise<number> {
  const given = process.execArgv.filter((arg) => arg.startsWith("--max-http-header-size"));
  if (given.length === 1 && SERVE_RUNTIME_FLAGS.includes(given[0])) return MAX_HTTP_HEADER_BYTES;
  return (await import("node:http")).maxHeaderSize;
}

export async function serve({ values }: ParsedCommandLine<typeof SERVE>, { startedLoad }: RunContext): Promise<number> {
  let stopWith: (reason: string, exitCode: number) => void = () => {};
  const config = loadConfig(values, process.env);
  await ensureDatasets(config.dataDir, { ...config, env: process.env }, log.info);
  const server = await startServer(config, log, (reason) => stopWith(reason, 1), startedLoad ?? undefined);
  let signals = 0;
  const stop = (signal: string, exitCode = 0) => {
    if (signals++ > 0) {
      log.info(`${signal} received again: closing open connections now`);
      void server.closeConnections();
      return;
    }
    log.info(
      `${signal}${signal.startsWith("SIG") ? " received" : ""}: finishing in-flight requests and saving usage ` +
        `counters (a second signal stops at once)`,
    );
    server.shutdown().then(
      () => process.exit(exitCode),
      (err) => {
        log.error(`shutdown failed: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  };
  stopWith = (reason, exitCode) => {
    log.error(reason);
    stop("stopping", exitCode);
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGHUP", () => void server.reload("SIGHUP"));
  // `npx bun run start` signalled by its pid: npx exits, and nothing passes the signal on to this process.
  watchLaunchers(packageScriptLaunchers(process.env), (launcher) =>
    stop(`its launcher exited (pid ${launcher.pid}, ${launcher.command}): stopping with it`),
  );
  const headerBytes = await headerLimit();
  if (headerBytes < MAX_HTTP_HEADER_BYTES) {
    log.info(
      `Note: Bun was started without ${SERVE_RUNTIME_FLAGS.join(" ")}: a request with over ${headerBytes} bytes ` +
        `of URL and headers gets a bare 431. "bun run start" and the binary pass it.`,
    );
  }
  return KEEP_RUNNING;
}
