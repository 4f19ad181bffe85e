import type { Database } from "bun:sqlite";
import type { ChangeSignal } from "./change-signal.ts";
import { type KeyRecord, normaliseKeyName } from "./key-record.ts";
import { displayPrefix, generateSecret, hashSecret } from "./secret.ts";

export class KeyStoreError extends Error {}

export interface NewKey {
  name: string;
  ratePerMinute?: number | null;
  ipQuotaPerMonth?: number | null;
}

interface KeyRow {
  id: string;
  name: string;
  secret_hash: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  rate_per_minute: number | null;
  ip_quota_per_month: number | null;
}

const COLUMNS = "id, name, secret_hash, prefix, created_at, last_used_at, revoked_at, rate_per_minute, ip_quota_per_month";

/** API keys in SQLite. Safe to use from the CLI while a server has the same file open. */
export class KeyStore {
  constructor(
    private readonly db: Database,
    private readonly signal: ChangeSignal,
  ) {}

  create(input: NewKey, now = new Date()): { key: KeyRecord; secret: string } {
    const checked = normaliseKeyName(input.name);
    if ("error" in checked) throw new KeyStoreError(checked.error);
    const secret = generateSecret();
    const row: KeyRow = {
      id: "key_" + Buffer.from(crypto.getRandomValues(new Uint8Array(9))).toString("base64url"),
      name: checked.name,
      secret_hash: hashSecret(secret),
      prefix: displayPrefix(secret),
      created_at: now.toISOString(),
      last_used_at: null,
      revoked_at: null,
      rate_per_minute: input.ratePerMinute ?? null,
      ip_quota_per_month: input.ipQuotaPerMonth ?? null,
    };
    this.db
      .query(`INSERT INTO api_keys (${COLUMNS}) VALUES ($id, $name, $secret_hash, $prefix, $created_at, $last_used_at, $revoked_at, $rate_per_minute, $ip_quota_per_month)`)
      .run(row as unknown as Record<string, string | number | null>);
    this.signal.bump();
    return { key: toRecord(row), secret };
  }

  list(): KeyRecord[] {
    return this.db.query<KeyRow, []>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`).all().map(toRecord);
  }

  /** Every key by the hash of its secret, for the in-memory authenticator. */
  allByHash(): Map<string, KeyRecord> {
    const rows = this.db.query<KeyRow, []>(`SELECT ${COLUMNS} FROM api_keys`).all();
    return new Map(rows.map((row) => [row.secret_hash, toRecord(row)]));
  }

  /** Revokes by id, or by name when exactly one active key has that name. */
  revoke(idOrName: string, now = new Date()): KeyRecord {
    const key = this.resolve(idOrName);
    if (key.revokedAt) throw new KeyStoreError(`key ${key.id} ("${key.name}") was already revoked at ${key.revokedAt}`);
    const revokedAt = now.toISOString();
    this.db.query("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(revokedAt, key.id);
    this.signal.bump();
    return { ...key, revokedAt };
  }

  find(id: string): KeyRecord | null {
    const row = this.db.query<KeyRow, [string]>(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`).get(id);
    return row && toRecord(row);
  }

  private resolve(idOrName: string): KeyRecord {
    const byId = this.find(idOrName);
    if (byId) return byId;
    const byName = this.db
      .query<KeyRow, [string]>(`SELECT ${COLUMNS} FROM api_keys WHERE name = ? ORDER BY revoked_at IS NOT NULL, created_at`)
      .all(idOrName);
    const active = byName.filter((row) => row.revoked_at === null);
    if (active.length > 1) {
      throw new KeyStoreError(`${active.length} active keys are named "${idOrName}" (${active.map((r) => r.id).join(", ")}); revoke by id`);
    }
    if (byName.length === 0) throw new KeyStoreError(`no key has the id or name "${idOrName}"; see "riskcheck keys list"`);
    return toRecord(active[0] ?? byName[0]);
  }

  /** Records when keys were last used; called by the usage flusher inside its transaction. */
  touch(lastUsed: ReadonlyMap<string, string>): void {
    const update = this.db.query("UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)");
    for (const [id, at] of lastUsed) update.run(at, id, at);
  }
}

function toRecord(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    ratePerMinute: row.rate_per_minute,
    ipQuotaPerMonth: row.ip_quota_per_month,
  };
}
