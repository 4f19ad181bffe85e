import { Database } from "bun:sqlite";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The data directory's update lock: an exclusive SQLite transaction on a small file,
 * that is an fcntl lock the kernel holds for this process and drops when it ends, however
 * it ends. No pid is trusted (a reboot or a container reuses them) and no stale lock is
 * ever taken over, so two updates cannot both believe they hold it.
 */
export class UpdateLock {
  private constructor(
    private readonly db: Database,
    private readonly ownerFile: string,
  ) {}

  /** Takes the lock in `versionsDir`, or throws naming the update that holds it. */
  static take(versionsDir: string): UpdateLock {
    const file = join(versionsDir, ".update-lock.sqlite");
    const ownerFile = join(versionsDir, ".update-lock.owner");
    const db = new Database(file, { create: true });
    try {
      db.exec("PRAGMA busy_timeout = 0");
      // An empty file is locked by nobody: SQLite only locks a database that has a page.
      db.exec("CREATE TABLE IF NOT EXISTS held (since TEXT)");
      db.exec("PRAGMA locking_mode = EXCLUSIVE");
      db.exec("BEGIN EXCLUSIVE");
    } catch (err) {
      db.close();
      if ((err as { code?: string }).code !== "SQLITE_BUSY") throw err;
      throw new Error(`${file}: another update${holder(ownerFile)} is running; try again when it has finished`);
    }
    // For the message a second update prints; the lock itself is the transaction, so a
    // pid that cannot be written (a full disk) is no reason to fail.
    try {
      writeFileSync(ownerFile, String(process.pid));
    } catch {}
    return new UpdateLock(db, ownerFile);
  }

  release(): void {
    rmSync(this.ownerFile, { force: true });
    this.db.close();
  }
}

function holder(ownerFile: string): string {
  try {
    const pid = Number(readFileSync(ownerFile, "utf8"));
    return Number.isInteger(pid) && pid > 0 ? ` (process ${pid})` : "";
  } catch {
    return "";
  }
}
