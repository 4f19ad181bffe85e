import { type KeyRecord, normaliseKeyName } from "./key-record.ts";
import { DEFAULT_PERMISSIONS, type Permission, permissionsOf, permissionsText } from "./permissions.ts";
import { displayPrefix, generateSecret, hashSecret } from "./secret.ts";

export class KeyStoreError extends Error {}

export interface NewKey {
  name: string;
  ratePerMinute?: number | null;
  ipQuotaPerMonth?: number | null;
  /** `check` when left out. */
  permissions?: readonly Permission[];
}

/** API keys where the dashboard and the CLI manage them: SQLite or PostgreSQL. */
export interface KeyStore {
  create(input: NewKey, now?: Date): Promise<{ key: KeyRecord; secret: string }>;
  list(): Promise<KeyRecord[]>;
  find(id: string): Promise<KeyRecord | null>;
  /** Revokes by id, or by name when exactly one active key has that name. */
  revoke(idOrName: string, now?: Date): Promise<KeyRecord>;
}

/** A key as both databases store it. */
export interface KeyRow {
  id: string;
  name: string;
  secret_hash: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  rate_per_minute: number | null;
  ip_quota_per_month: number | null;
  /** "check", "report" or "check,report". */
  permissions: string;
}

export const KEY_COLUMNS = "id, name, secret_hash, prefix, created_at, last_used_at, revoked_at, rate_per_minute, ip_quota_per_month, permissions";

/**
 * The largest per-key rate or quota: PostgreSQL's INTEGER, so a key that SQLite accepts
 * can be moved to PostgreSQL (`db migrate`) and the other way round.
 */
export const MAX_KEY_LIMIT = 2_147_483_647;

/** A new key's row and its secret, which is returned once and never stored. */
export function newKeyRow(input: NewKey, now: Date): { row: KeyRow; secret: string } {
  const checked = normaliseKeyName(input.name);
  if ("error" in checked) throw new KeyStoreError(checked.error);
  for (const limit of [input.ratePerMinute, input.ipQuotaPerMonth]) {
    if (limit != null && !(Number.isInteger(limit) && limit >= 0 && limit <= MAX_KEY_LIMIT)) throw new KeyStoreError(`a limit must be a whole number from 0 to ${MAX_KEY_LIMIT}`);
  }
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
    permissions: permissionsText(input.permissions ?? DEFAULT_PERMISSIONS),
  };
  return { row, secret };
}

/**
 * The key `revoke` means by a name: the one active key of that name, else a revoked one
 * (so the error can say it was already revoked). `named` is every key with that name.
 */
export function keyNamed(name: string, named: readonly KeyRow[]): KeyRecord {
  const active = named.filter((row) => row.revoked_at === null);
  if (active.length > 1) throw new KeyStoreError(`${active.length} active keys are named "${name}" (${active.map((r) => r.id).join(", ")}); revoke by id`);
  const chosen = active[0] ?? named[0];
  if (chosen === undefined) throw new KeyStoreError(`no key has the id or name "${name}"; see "riskcheck keys list"`);
  return toRecord(chosen);
}

export function alreadyRevoked(key: KeyRecord): KeyStoreError {
  return new KeyStoreError(`key ${key.id} ("${key.name}") was already revoked at ${key.revokedAt}`);
}

export function toRecord(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    ratePerMinute: row.rate_per_minute,
    ipQuotaPerMonth: row.ip_quota_per_month,
    permissions: permissionsOf(row.permissions),
  };
}
