import type { SQL } from "bun";
import type { KeyRecord } from "../../keys/key-record.ts";
import { type KeyStore, type NewKey, alreadyRevoked } from "../../keys/key-store.ts";
import { KEY_COLUMNS, type KeyRow, keyNamed, newKeyRow, toRecord } from "../key-row.ts";
import { boundedTransaction } from "./bounded-transaction.ts";

/** API keys in PostgreSQL; a trigger announces every change to the instances (see database.ts). */
export class PostgresKeyStore implements KeyStore {
  constructor(private readonly sql: SQL) {}

  async create(input: NewKey, now = new Date()): Promise<{ key: KeyRecord; secret: string }> {
    const { row, secret } = newKeyRow(input, now);
    await boundedTransaction(this.sql, (tx) => tx`INSERT INTO api_keys ${tx(row)}`);
    return { key: toRecord(row), secret };
  }

  async list(): Promise<KeyRecord[]> {
    return (await this.sql<KeyRow[]>`SELECT ${this.sql.unsafe(KEY_COLUMNS)} FROM api_keys ORDER BY created_at, id`).map(toRecord);
  }

  async find(id: string): Promise<KeyRecord | null> {
    const [row] = await this.sql<KeyRow[]>`SELECT ${this.sql.unsafe(KEY_COLUMNS)} FROM api_keys WHERE id = ${id}`;
    return row ? toRecord(row) : null;
  }

  async revoke(idOrName: string, now = new Date()): Promise<KeyRecord> {
    const key =
      (await this.find(idOrName)) ??
      keyNamed(idOrName, await this.sql<KeyRow[]>`SELECT ${this.sql.unsafe(KEY_COLUMNS)} FROM api_keys WHERE name = ${idOrName} ORDER BY created_at`);
    const revokedAt = now.toISOString();
    // Conditional, so that of two revocations at once exactly one succeeds.
    const [row] = await boundedTransaction(
      this.sql,
      (tx) => tx<KeyRow[]>`UPDATE api_keys SET revoked_at = ${revokedAt} WHERE id = ${key.id} AND revoked_at IS NULL RETURNING ${tx.unsafe(KEY_COLUMNS)}`,
    );
    if (!row) throw alreadyRevoked((await this.find(key.id)) ?? key);
    return toRecord(row);
  }
}
