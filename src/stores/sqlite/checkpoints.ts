import type { Database } from "bun:sqlite";
import { RUNNING_COMPILED } from "../../runtime/compiled.ts";
import type { CheckpointRequest } from "./checkpoint-worker.ts";

/** Where build.ts's entry point for the Worker lands inside the executable. */
const COMPILED_WORKER = "/$bunfs/root/stores/sqlite/checkpoint-worker.js";
/** How often the Worker checkpoints: a flood of a thousand writes a second grows the WAL by some 5 MB between two. */
export const CHECKPOINT_EVERY_MS = 1_000;
/** How long a turn of the Worker waits for another connection's write lock before leaving it to the next turn. */
export const CHECKPOINT_BUSY_TIMEOUT_MS = 1_000;

/**
 * Moves the serving database's WAL checkpoints off the event loop. SQLite checkpoints when a
 * commit finds the WAL over 1,000 pages, in that commit: copying some 4 MB and syncing the file,
 * tens of milliseconds on a busy disk during which no request is answered (a flood of override
 * writes did it several times a second). The serving connection checkpoints no more; a Worker of
 * its own does, every second, and starts the WAL again after each, so the serving connection never
 * syncs a new WAL's header either. Should the Worker fail, the connection checkpoints again as before.
 */
export function checkpointElsewhere(db: Database, logError: (line: string) => void): { stop(): void } {
  db.exec("PRAGMA wal_autocheckpoint = 0");
  const worker = new Worker(
    RUNNING_COMPILED ? COMPILED_WORKER : new URL("./checkpoint-worker.ts", import.meta.url).href,
  );
  const fallBack = (why: string) => {
    worker.terminate();
    logError(`SQLite: checkpointing the database apart failed (${why}); the server checkpoints it itself`);
    db.exec("PRAGMA wal_autocheckpoint = 1000");
  };
  worker.onmessage = (event: MessageEvent<{ error: string }>) => fallBack(event.data.error);
  worker.onerror = (event) => fallBack(event.message);
  worker.unref();
  worker.postMessage({
    path: db.filename,
    everyMs: CHECKPOINT_EVERY_MS,
    busyTimeoutMs: CHECKPOINT_BUSY_TIMEOUT_MS,
  } satisfies CheckpointRequest);
  return { stop: () => worker.terminate() };
}
