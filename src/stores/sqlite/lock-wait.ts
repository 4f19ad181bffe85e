import type { Database } from "bun:sqlite";

/** How long a write keeps trying while another process holds the database's write lock. */
export const LOCK_PATIENCE_MS = 5_000;

/** The database stayed locked by another process for longer than LOCK_PATIENCE_MS. */
export class DatabaseLocked extends Error {}

const isBusy = (err: unknown) => (err as { code?: string }).code === "SQLITE_BUSY";

/**
 * Runs a write, trying again while another process (the CLI, a backup, a sqlite3 shell)
 * holds the write lock. The server opens its database with no busy timeout, so each try
 * fails at once and the waiting happens here, between turns of the event loop: a lock
 * held elsewhere never stalls the requests being answered meanwhile.
 */
export async function writeWhenUnlocked<T>(db: Database, write: () => T, patienceMs = LOCK_PATIENCE_MS): Promise<T> {
  const giveUpAt = performance.now() + patienceMs;
  for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
    try {
      return write();
    } catch (err) {
      if (!isBusy(err)) throw err;
      if (performance.now() + pause > giveUpAt) throw lockedError(db.filename);
      await Bun.sleep(pause);
    }
  }
}

/** What to do about a database another process keeps locked. */
export function lockedError(path: string): DatabaseLocked {
  return new DatabaseLocked(
    `${path}: the database is locked by another process (a long transaction, a backup, or a sqlite3 shell left in ` +
      `a transaction); let it finish or end it (find it with "fuser ${path}"), then try again`,
  );
}
