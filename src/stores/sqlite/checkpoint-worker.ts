/**
 * The Worker that checkpoints the server's SQLite database (checkpoints.ts): its own connection
 * to the file, a passive checkpoint every interval (the WAL's pages copied into the database,
 * never waiting on a writer or a reader), so that the serving thread never does it. A failure is
 * posted back; the Worker carries on.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

export interface CheckpointRequest {
  readonly path: string;
  readonly everyMs: number;
}

self.onmessage = (event: MessageEvent<CheckpointRequest>) => {
  const { path, everyMs } = event.data;
  const db = new Database(path);
  db.exec("PRAGMA busy_timeout = 1000");
  setInterval(() => {
    try {
      db.exec("PRAGMA wal_checkpoint(PASSIVE)");
    } catch (err) {
      self.postMessage({ error: (err as Error).message });
    }
  }, everyMs);
};
