import type { Database } from "bun:sqlite";
import { StorageUnavailable, storageFaultOf } from "../../faults/storage-fault.ts";

/** How long a write keeps trying while another process holds the database's write lock. */
export const LOCK_PATIENCE_MS = 5_000;

/** The database stayed locked by another process for longer than a write's patience. */
export class DatabaseLocked extends StorageUnavailable {
  constructor(message: string) {
    super(message, "locked");
  }
}

const isBusy = (err: unknown) => (err as { code?: string }).code === "SQLITE_BUSY";

/** How a store's writes reach the database: SqliteWrites outside an act, IN_ACT inside one. */
export interface Writes {
  run<T>(write: () => T, patienceMs?: number): Promise<T>;
  /** Runs `then` once what was written is committed: at once outside an act, after its COMMIT inside one. */
  afterCommit(then: () => void): void;
  /** Runs a read that must see only what is committed: after this process's act in progress, if any. */
  committed<T>(read: () => T): Promise<T>;
}

/**
 * A database's writes in this process. Each tries again while another process (the CLI, a
 * backup, a sqlite3 shell) holds the write lock: the server opens its database with no busy
 * timeout, so each try fails at once and the waiting happens here, between turns of the event
 * loop, and a lock held elsewhere never stalls the requests answered meanwhile. Each also waits
 * for this process's act in progress (`transaction`), which holds the one connection's
 * transaction open across its awaits: a write of another request must not join it, to be
 * rolled back with it.
 */
export class SqliteWrites implements Writes {
  private act: Promise<void> | null = null;

  constructor(readonly db: Database) {}

  async run<T>(write: () => T, patienceMs = LOCK_PATIENCE_MS): Promise<T> {
    const giveUpAt = performance.now() + patienceMs;
    for (let pause = 5; ; ) {
      if (this.act !== null) {
        await this.act;
        continue;
      }
      try {
        return write();
      } catch (err) {
        if (!isBusy(err)) throw storageFaultOf(err) ?? err;
        if (performance.now() + pause > giveUpAt) throw lockedError(this.db.filename);
        await Bun.sleep(pause);
        pause = Math.min(pause * 2, 200);
      }
    }
  }

  afterCommit(then: () => void): void {
    then();
  }

  async committed<T>(read: () => T): Promise<T> {
    while (this.act !== null) await this.act;
    return read();
  }

  /**
   * Runs `work` in one immediate transaction, whose writes go through the `Writes` it is
   * given: committed together, or rolled back together when it throws. This process's acts
   * run one at a time; the others' writes wait for each. A failure of the database is a
   * StorageUnavailable that changed nothing: SQLite commits or rolls back whole.
   */
  async transaction<T>(work: (writes: Writes) => Promise<T>): Promise<T> {
    let finished!: () => void;
    const act = new Promise<void>((resolve) => (finished = resolve));
    await this.run(() => {
      this.db.exec("BEGIN IMMEDIATE");
      this.act = act;
    });
    const committed: (() => void)[] = [];
    try {
      const result = await work({
        run: async (write) => write(),
        afterCommit: (then) => void committed.push(then),
        committed: async (read) => read(),
      });
      this.db.exec("COMMIT");
      for (const then of committed) then();
      return result;
    } catch (err) {
      try {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
      } catch {
        // SQLite rolls back by itself a transaction it could not write (a full disk, an I/O error).
      }
      throw storageFaultOf(err)?.withOutcome("not_done") ?? err;
    } finally {
      this.act = null;
      finished();
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
