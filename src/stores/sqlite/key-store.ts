import type { Database } from "bun:sqlite";
import { writeWhenUnlocked } from "./lock-wait.ts";
import type { ChangeSignal } from "./change-signal.ts";
import type { KeyRecord } from "../../keys/key-record.ts";
import { type KeyStore, type NewKey, alreadyRevoked } from "../../keys/key-store.ts";
import { KEY_COLUMNS, type KeyRow, keyNamed, newKeyRow, toRecord } from "../key-row.ts";

/** API keys in SQLite. Safe to use from the CLI while a server has the same file open. */
export class SqliteKeyStore implements KeyStore {
  constructor(
    private readonly db: Database,
    private readonly signal: ChangeSignal,
  ) {}

  async create(input: NewKey, now = new Date()): Promise<{ key: KeyRecord; secret: string }> {
    const { row, secret } = newKeyRow(input, now);
    await writeWhenUnlocked(this.db, () =>
      this.db
        .query(`INSERT INTO api_keys (${KEY_COLUMNS}) VALUES ($id, $name, $secret_hash, $prefix, $created_at, $last_used_at, $revoked_at, $rate_per_minute, $ip_quota_per_month, $permissions)`)
        .run(row as unknown as Record<string, string | number | null>),
    );
    this.signal.bump();
    return { key: toRecord(row), secret };
  }

  async list(): Promise<KeyRecord[]> {
    return this.db.query<KeyRow, []>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, id`).all().map(toRecord);
  }

  async revoke(idOrName: string, now = new Date()): Promise<KeyRecord> {
    const key = this.findNow(idOrName) ?? keyNamed(idOrName, this.db.query<KeyRow, [string]>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE name = ? ORDER BY created_at`).all(idOrName));
    if (key.revokedAt) throw alreadyRevoked(key);
    const revokedAt = now.toISOString();
    await writeWhenUnlocked(this.db, () => this.db.query("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(revokedAt, key.id));
    this.signal.bump();
    return { ...key, revokedAt };
  }

  async find(id: string): Promise<KeyRecord | null> {
    return this.findNow(id);
  }

  private findNow(id: string): KeyRecord | null {
    const row = this.db.query<KeyRow, [string]>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`).get(id);
    return row && toRecord(row);
  }
}
