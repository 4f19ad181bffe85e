import { type KeyRecord, normaliseKeyName } from "../keys/key-record.ts";
import { KeyStoreError, MAX_KEY_LIMIT, type NewKey } from "../keys/key-store.ts";
import { DEFAULT_PERMISSIONS, permissionsOf, permissionsText } from "../keys/permissions.ts";
import { displayPrefix, generateSecret, hashSecret } from "../keys/secret.ts";

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

/** A new key's row and its secret, which is returned once and never stored. */
export function newKeyRow(input: NewKey, now: Date): { row: KeyRow; secret: string } {
  const checked = normaliseKeyName(input.name);
  if ("error" in checked) throw new KeyStoreError("invalid", checked.error);
  for (const limit of [input.ratePerMinute, input.ipQuotaPerMonth]) {
    if (limit != null && !(Number.isInteger(limit) && limit >= 0 && limit <= MAX_KEY_LIMIT)) {
      throw new KeyStoreError("invalid", `a limit must be a whole number from 0 to ${MAX_KEY_LIMIT}`);
    }
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
  if (active.length > 1) {
    throw new KeyStoreError("ambiguous_name", `${active.length} active keys are named "${name}" (${active.map((r) => r.id).join(", ")}); revoke by id`);
  }
  const chosen = active[0] ?? named[0];
  if (chosen === undefined) throw new KeyStoreError("not_found", `no key has the id or name "${name}"; see "riskcheck keys list"`);
  return toRecord(chosen);
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
