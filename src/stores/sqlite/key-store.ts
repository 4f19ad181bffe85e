import type { Database } from "bun:sqlite";
import type { Writes } from "./lock-wait.ts";
import type { ChangeSignal } from "./change-signal.ts";
import type { KeyRecord } from "../../keys/key-record.ts";
import {
  type KeyChange,
  type KeyChanges,
  type KeyStore,
  type NewKey,
  alreadyRevoked,
  nameTaken,
  revokedCannotChange,
} from "../../keys/key-store.ts";
import {
  KEY_COLUMNS,
  KEY_SETTINGS_ASSIGNMENTS,
  type KeyRow,
  keyRowNamed,
  newKeyRow,
  rotatedRow,
  settingsOf,
  toRecord,
  updatedRow,
} from "../key-row.ts";

/**
 * API keys in SQLite. Safe to use from the CLI while a server has the same file open: each
 * change reads and writes in one immediate transaction, so a name taken meanwhile is seen.
 */
export class SqliteKeyStore implements KeyStore {
  constructor(
    private readonly db: Database,
    private readonly writes: Writes,
    private readonly signal: ChangeSignal,
  ) {}

  async create(input: NewKey, now = new Date()): Promise<{ key: KeyRecord; secret: string }> {
    const { row, secret } = newKeyRow(input, now);
    await this.write(() => {
      this.refuseTakenName(row.name, row.id);
      this.db
        .query(
          `INSERT INTO api_keys (${KEY_COLUMNS}) VALUES (${KEY_COLUMNS.split(", ")
            .map((c) => `$${c}`)
            .join(", ")})`,
        )
        .run(row as unknown as Record<string, string | number | null>);
    });
    return { key: toRecord(row), secret };
  }

  async list(): Promise<KeyRecord[]> {
    return this.db.query<KeyRow, []>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, id`).all().map(toRecord);
  }

  async revoke(idOrName: string, now = new Date()): Promise<KeyRecord> {
    const key = toRecord(this.rowOf(idOrName));
    if (key.revokedAt) throw alreadyRevoked(key);
    const revokedAt = now.toISOString();
    await this.write(() => this.db.query("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(revokedAt, key.id));
    return { ...key, revokedAt };
  }

  async update(idOrName: string, changes: KeyChanges): Promise<KeyChange> {
    return this.change(idOrName, (row) => ({ row: updatedRow(row, changes), secret: "" }));
  }

  async rotate(idOrName: string, graceMs: number, now = new Date()): Promise<KeyChange & { secret: string }> {
    return this.change(idOrName, (row) => rotatedRow(row, graceMs, now));
  }

  async find(id: string): Promise<KeyRecord | null> {
    const row = this.rowById(id);
    return row && toRecord(row);
  }

  /** Applies `make` to the key's current row inside one write transaction. */
  private async change(
    idOrName: string,
    make: (row: KeyRow) => { row: KeyRow; secret: string },
  ): Promise<KeyChange & { secret: string }> {
    return this.write(() => {
      const before = this.rowOf(idOrName);
      if (before.revoked_at !== null) throw revokedCannotChange(toRecord(before));
      const { row, secret } = make(before);
      if (row.name !== before.name) this.refuseTakenName(row.name, row.id);
      this.db.query(`UPDATE api_keys SET ${KEY_SETTINGS_ASSIGNMENTS} WHERE id = $id`).run(settingsOf(row));
      return { before: toRecord(before), after: toRecord(row), secret };
    });
  }

  /** One immediate transaction, then, once it is committed, the announcement to the serving processes. */
  private async write<T>(work: () => T): Promise<T> {
    const result = await this.writes.run(() => this.db.transaction(work).immediate());
    this.writes.afterCommit(() => this.signal.bump());
    return result;
  }

  private refuseTakenName(name: string, id: string): void {
    const holder = this.db
      .query<{ id: string }, [string, string]>(
        "SELECT id FROM api_keys WHERE name = ? AND revoked_at IS NULL AND id <> ? LIMIT 1",
      )
      .get(name, id);
    if (holder) throw nameTaken(name, holder);
  }

  private rowById(id: string): KeyRow | null {
    return this.db.query<KeyRow, [string]>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`).get(id);
  }

  private rowOf(idOrName: string): KeyRow {
    return (
      this.rowById(idOrName) ??
      keyRowNamed(
        idOrName,
        this.db
          .query<KeyRow, [string]>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE name = ? ORDER BY created_at`)
          .all(idOrName),
      )
    );
  }
}
