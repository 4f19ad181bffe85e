/**
 * The Worker that checkpoints the server's SQLite database (checkpoints.ts): its own connection
 * to the file, a passive checkpoint every interval (the WAL's pages copied into the database,
 * never waiting on a writer or a reader), so that the serving thread never does it. A failure is
 * posted back; the Worker carries on.
 *
 * Once a checkpoint has copied the whole WAL, this connection also starts the WAL again from its
 * beginning, with a write of its own: the writer that starts it syncs its header to disk, and the
 * serving thread's next write would otherwise be that writer — 100–200 ms on a disk busy writing
 * back a new dataset version, with no request answered meanwhile. The serving connection's
 * writes then always append. Nothing written elsewhere since that start: no checkpoint, no write.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

export interface CheckpointRequest {
  readonly path: string;
  readonly everyMs: number;
  readonly busyTimeoutMs: number;
}

self.onmessage = (event: MessageEvent<CheckpointRequest>) => {
  const { path, everyMs, busyTimeoutMs } = event.data;
  const db = new Database(path);
  db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  // Changes whenever another connection commits; this connection's own commits leave it.
  const dataVersion = db.query<{ data_version: number }, []>("PRAGMA data_version");
  const checkpoint = db.query<{ busy: number; log: number; checkpointed: number }, []>(
    "PRAGMA wal_checkpoint(PASSIVE)",
  );
  const userVersion = db.query<{ user_version: number }, []>("PRAGMA user_version");
  // The schema's version written again as it is: a page of the WAL's first frame, meaning nothing.
  const startWal = db.transaction(() => db.exec(`PRAGMA user_version = ${userVersion.get()!.user_version}`));
  let startedAtVersion: number | null = null;
  setInterval(() => {
    try {
      const version = dataVersion.get()!.data_version;
      if (version === startedAtVersion) return;
      const { busy, log, checkpointed } = checkpoint.get()!;
      if (busy !== 0 || checkpointed !== log) return;
      startWal.immediate();
      startedAtVersion = version;
    } catch (err) {
      // Another process's write lock held past the timeout: the next turn tries again.
      if ((err as { code?: string }).code === "SQLITE_BUSY") return;
      self.postMessage({ error: (err as Error).message });
    }
  }, everyMs);
};
