import { Database } from "bun:sqlite";
import { expect, setDefaultTimeout, test } from "bun:test";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/stores/sqlite/database.ts";
import {
  CHECKPOINT_BUSY_TIMEOUT_MS,
  CHECKPOINT_EVERY_MS,
  checkpointElsewhere,
} from "../../src/stores/sqlite/checkpoints.ts";
import { inMemoryChangeSignal } from "../../src/stores/sqlite/change-signal.ts";
import { sqliteStores } from "../../src/stores/sqlite/stores.ts";
import { makeDataDir } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";
import { eventually } from "../support/deadline.ts";

setDefaultTimeout(scaled(30_000));

/** The Worker starts as the database opens, and its first turn comes a period after that. */
const UNTIL_FIRST_TURN_MS = CHECKPOINT_EVERY_MS;
/** For a thread's start and a turn's work, on a quiet machine. */
const MARGIN_MS = 1_000;

test("a serving database is checkpointed by a Worker of its own, never in a commit on the serving thread", async () => {
  const path = join(makeDataDir(), "r.sqlite");
  const db = openDatabase(path, 0, true);
  const stores = sqliteStores(db, inMemoryChangeSignal(), path);
  const serving = await stores.serving({ now: Date.now, logError: (line) => expect(line).toBeUndefined() });
  try {
    expect(db.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()!.wal_autocheckpoint).toBe(0);
    const fileBefore = statSync(path).size;
    // Some 20,000 pages of WAL frames, past the 1,000 at which a commit would checkpoint by itself.
    for (let i = 0; i < 3_000; i++) {
      await stores.ipOverrides.put({
        target: `81.${i >> 16}.${(i >> 8) & 255}.${i & 255}`,
        action: "deny",
        reason: "r".repeat(400),
        author: "ops",
        created: "2026-11-23T00:00:00.000Z",
        until: null,
      });
    }
    // Only a checkpoint writes the database file itself; the serving connection makes none.
    await eventually(
      "the Worker's checkpoint",
      UNTIL_FIRST_TURN_MS + MARGIN_MS,
      () => statSync(path).size > fileBefore + 1_000_000,
    );
    expect((await stores.ipOverrides.counts(null)).total).toBe(3_000);
  } finally {
    await serving.release();
    await stores.close();
  }
});

/** The WAL file's header: its checkpoint sequence and salts change each time a writer starts the WAL again. */
function walHeader(path: string): string {
  const fd = openSync(`${path}-wal`, "r");
  try {
    const header = Buffer.alloc(24);
    readSync(fd, header, 0, 24, 0);
    return header.toString("hex");
  } finally {
    closeSync(fd);
  }
}

test("the checkpointing Worker starts the WAL again itself: a write on the serving thread appends, never syncs a new WAL", async () => {
  const path = join(makeDataDir(), "r.sqlite");
  const db = openDatabase(path, 0, true);
  const stores = sqliteStores(db, inMemoryChangeSignal(), path);
  const serving = await stores.serving({ now: Date.now, logError: (line) => expect(line).toBeUndefined() });
  let n = 0;
  const write = () =>
    stores.ipOverrides.put({
      target: `81.0.0.${n++}`,
      action: "deny",
      reason: "r",
      author: "ops",
      created: "2026-11-23T00:00:00.000Z",
      until: null,
    });
  try {
    for (let round = 0; round < 2; round++) {
      const before = walHeader(path);
      await write();
      // The serving connection's commit went after the Worker's frame: the header it would have synced is unchanged.
      expect(walHeader(path)).toBe(before);
      // The Worker checkpoints that write and starts the WAL again, before the next one.
      await eventually("the Worker's new WAL", UNTIL_FIRST_TURN_MS + MARGIN_MS, () => walHeader(path) !== before);
    }
    expect((await stores.ipOverrides.counts(null)).total).toBe(2);
  } finally {
    await serving.release();
    await stores.close();
  }
});

test("a write lock another process holds past the Worker's patience leaves the checkpoints in the Worker", async () => {
  const path = join(makeDataDir(), "r.sqlite");
  const db = openDatabase(path, 0, true);
  const errors: string[] = [];
  const checkpoints = checkpointElsewhere(db, (line) => errors.push(line));
  const other = new Database(path);
  try {
    db.exec("CREATE TABLE t (x)");
    const fileBefore = statSync(path).size;
    const walBefore = walHeader(path);
    other.exec("BEGIN IMMEDIATE");
    other.exec("INSERT INTO t VALUES (1)");
    // The Worker's first turn, while the lock is held: its passive checkpoint needs no write lock,
    // and it writes the committed pages into the database file.
    await eventually(
      "the Worker's first checkpoint, while another connection holds the write lock",
      UNTIL_FIRST_TURN_MS + MARGIN_MS,
      () => statSync(path).size > fileBefore,
    );
    // Held past the busy timeout of that turn's start of a new WAL, which needs the lock: it met SQLITE_BUSY.
    await Bun.sleep(scaled(CHECKPOINT_BUSY_TIMEOUT_MS + MARGIN_MS));
    expect(walHeader(path)).toBe(walBefore);
    expect(errors).toEqual([]);
    other.exec("COMMIT");
    // A later turn tries again and starts the WAL, as soon as it has the lock.
    await eventually(
      "the Worker's new WAL once the lock is gone",
      CHECKPOINT_EVERY_MS + CHECKPOINT_BUSY_TIMEOUT_MS + MARGIN_MS,
      () => errors.length > 0 || walHeader(path) !== walBefore,
    );
    expect(errors).toEqual([]);
    expect(db.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()!.wal_autocheckpoint).toBe(0);
  } finally {
    if (other.inTransaction) other.exec("ROLLBACK");
    other.close();
    checkpoints.stop();
    db.close();
  }
});
