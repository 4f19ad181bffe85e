import type { SQL, TransactionSQL } from "bun";
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
  type KeyRow,
  keyRowNamed,
  newKeyRow,
  rotatedRow,
  settingsOf,
  toRecord,
  updatedRow,
} from "../key-row.ts";
import { boundedTransaction } from "./bounded-transaction.ts";

/** Any number: creations and renames take turns, so two cannot give one name to two active keys. */
const KEY_NAMES_LOCK = 0x6b65796e;

/** API keys in PostgreSQL; a trigger announces every change to the instances (see database.ts). */
export class PostgresKeyStore implements KeyStore {
  constructor(private readonly sql: SQL) {}

  async create(input: NewKey, now = new Date()): Promise<{ key: KeyRecord; secret: string }> {
    const { row, secret } = newKeyRow(input, now);
    await boundedTransaction(this.sql, async (tx) => {
      await refuseTakenName(tx, row.name, row.id);
      await tx`INSERT INTO api_keys ${tx(row)}`;
    });
    return { key: toRecord(row), secret };
  }

  async list(): Promise<KeyRecord[]> {
    return (await this.sql<KeyRow[]>`SELECT ${this.sql.unsafe(KEY_COLUMNS)} FROM api_keys ORDER BY created_at, id`).map(
      toRecord,
    );
  }

  async find(id: string): Promise<KeyRecord | null> {
    const [row] = await this.sql<KeyRow[]>`SELECT ${this.sql.unsafe(KEY_COLUMNS)} FROM api_keys WHERE id = ${id}`;
    return row ? toRecord(row) : null;
  }

  async revoke(idOrName: string, now = new Date()): Promise<KeyRecord> {
    const key = toRecord(await rowOf(this.sql, idOrName));
    const revokedAt = now.toISOString();
    // Conditional, so that of two revocations at once exactly one succeeds.
    const [row] = await boundedTransaction(
      this.sql,
      (tx) =>
        tx<
          KeyRow[]
        >`UPDATE api_keys SET revoked_at = ${revokedAt} WHERE id = ${key.id} AND revoked_at IS NULL RETURNING ${tx.unsafe(KEY_COLUMNS)}`,
    );
    if (!row) throw alreadyRevoked((await this.find(key.id)) ?? key);
    return toRecord(row);
  }

  async update(idOrName: string, changes: KeyChanges): Promise<KeyChange> {
    return this.change(idOrName, (row) => ({ row: updatedRow(row, changes), secret: "" }));
  }

  async rotate(idOrName: string, graceMs: number, now = new Date()): Promise<KeyChange & { secret: string }> {
    return this.change(idOrName, (row) => rotatedRow(row, graceMs, now));
  }

  /** Applies `make` to the key's row, locked for the transaction. */
  private async change(
    idOrName: string,
    make: (row: KeyRow) => { row: KeyRow; secret: string },
  ): Promise<KeyChange & { secret: string }> {
    return boundedTransaction(this.sql, async (tx) => {
      const found = await rowOf(tx, idOrName);
      const [before] = await tx<
        KeyRow[]
      >`SELECT ${tx.unsafe(KEY_COLUMNS)} FROM api_keys WHERE id = ${found.id} FOR UPDATE`;
      if (before.revoked_at !== null) throw revokedCannotChange(toRecord(before));
      const { row, secret } = make(before);
      if (row.name !== before.name) await refuseTakenName(tx, row.name, row.id);
      const { id, ...settings } = settingsOf(row);
      await tx`UPDATE api_keys SET ${tx(settings)} WHERE id = ${id}`;
      return { before: toRecord(before), after: toRecord(row), secret };
    });
  }
}

async function refuseTakenName(tx: TransactionSQL, name: string, id: string): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(${KEY_NAMES_LOCK})`;
  const [holder] = await tx<
    { id: string }[]
  >`SELECT id FROM api_keys WHERE name = ${name} AND revoked_at IS NULL AND id <> ${id} LIMIT 1`;
  if (holder) throw nameTaken(name, holder);
}

/** The key an id or name means (see keyNamed). */
async function rowOf(sql: SQL | TransactionSQL, idOrName: string): Promise<KeyRow> {
  const [byId] = await sql<KeyRow[]>`SELECT ${sql.unsafe(KEY_COLUMNS)} FROM api_keys WHERE id = ${idOrName}`;
  return (
    byId ??
    keyRowNamed(
      idOrName,
      await sql<KeyRow[]>`SELECT ${sql.unsafe(KEY_COLUMNS)} FROM api_keys WHERE name = ${idOrName} ORDER BY created_at`,
    )
  );
}
