import { parseAllowedNetworks } from "../keys/allowed-networks.ts";
import type { KeyEntry } from "../keys/key-authenticator.ts";
import { type KeyRecord, normaliseKeyName } from "../keys/key-record.ts";
import { type KeyChanges, KeyStoreError, MAX_KEY_LIMIT, type NewKey, keyNamed } from "../keys/key-store.ts";
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
  last_used_ip: string | null;
  expires_at: string | null;
  /** Comma-separated CIDRs, or null: anywhere. */
  allowed_networks: string | null;
  /** The secret a rotation replaced, working until previous_secret_ends_at. */
  previous_secret_hash: string | null;
  previous_secret_ends_at: string | null;
}

export const KEY_COLUMNS =
  "id, name, secret_hash, prefix, created_at, last_used_at, revoked_at, rate_per_minute, ip_quota_per_month, permissions, last_used_ip, expires_at, allowed_networks, previous_secret_hash, previous_secret_ends_at";

/** The columns `update` and `rotate` write, as named parameters. */
export const KEY_SETTINGS_ASSIGNMENTS =
  "name = $name, secret_hash = $secret_hash, prefix = $prefix, rate_per_minute = $rate_per_minute, ip_quota_per_month = $ip_quota_per_month, permissions = $permissions, expires_at = $expires_at, allowed_networks = $allowed_networks, previous_secret_hash = $previous_secret_hash, previous_secret_ends_at = $previous_secret_ends_at";

/** A new key's row and its secret, which is returned once and never stored. */
export function newKeyRow(input: NewKey, now: Date): { row: KeyRow; secret: string } {
  const name = checkedName(input.name);
  const settings = checkedSettings(input);
  const secret = generateSecret();
  const row: KeyRow = {
    id: `key_${Buffer.from(crypto.getRandomValues(new Uint8Array(9))).toString("base64url")}`,
    name,
    secret_hash: hashSecret(secret),
    prefix: displayPrefix(secret),
    created_at: now.toISOString(),
    last_used_at: null,
    revoked_at: null,
    rate_per_minute: input.ratePerMinute ?? null,
    ip_quota_per_month: input.ipQuotaPerMonth ?? null,
    permissions: permissionsText(input.permissions ?? DEFAULT_PERMISSIONS),
    last_used_ip: null,
    expires_at: settings.expiresAt ?? null,
    allowed_networks: networksText(settings.allowedNetworks ?? []),
    previous_secret_hash: null,
    previous_secret_ends_at: null,
  };
  return { row, secret };
}

function checkedName(raw: string): string {
  const checked = normaliseKeyName(raw);
  if ("error" in checked) throw new KeyStoreError("invalid", checked.error);
  return checked.name;
}

/** Throws on a bad limit, expiry or network; the expiry as an ISO instant, the networks trimmed and without repeats. */
function checkedSettings(input: KeyChanges): Pick<KeyChanges, "expiresAt" | "allowedNetworks"> {
  for (const limit of [input.ratePerMinute, input.ipQuotaPerMonth]) {
    if (limit != null && !(Number.isInteger(limit) && limit >= 0 && limit <= MAX_KEY_LIMIT)) {
      throw new KeyStoreError("invalid", `a limit must be a whole number from 0 to ${MAX_KEY_LIMIT}`);
    }
  }
  let { expiresAt, allowedNetworks } = input;
  if (expiresAt != null) {
    const ms = Date.parse(expiresAt);
    if (Number.isNaN(ms)) throw new KeyStoreError("invalid", `"${expiresAt}" is not a date and time`);
    expiresAt = new Date(ms).toISOString();
  }
  if (allowedNetworks !== undefined) {
    const parsed = parseAllowedNetworks(allowedNetworks.join(","));
    if ("error" in parsed) throw new KeyStoreError("invalid", parsed.error);
    allowedNetworks = parsed.networks;
  }
  return { expiresAt, allowedNetworks };
}

function networksText(networks: readonly string[]): string | null {
  return networks.length === 0 ? null : networks.join(",");
}

/** The row after `changes`; throws on a bad value. The name's uniqueness is the store's to check. */
export function updatedRow(row: KeyRow, changes: KeyChanges): KeyRow {
  const { expiresAt, allowedNetworks } = checkedSettings(changes);
  const updated = { ...row };
  if (changes.name !== undefined) updated.name = checkedName(changes.name);
  if (changes.ratePerMinute !== undefined) updated.rate_per_minute = changes.ratePerMinute;
  if (changes.ipQuotaPerMonth !== undefined) updated.ip_quota_per_month = changes.ipQuotaPerMonth;
  if (changes.permissions !== undefined) updated.permissions = permissionsText(changes.permissions);
  if (expiresAt !== undefined) updated.expires_at = expiresAt;
  if (allowedNetworks !== undefined) updated.allowed_networks = networksText(allowedNetworks);
  return updated;
}

/** The row with a new secret; the current one becomes the previous, working for `graceMs`. */
export function rotatedRow(row: KeyRow, graceMs: number, now: Date): { row: KeyRow; secret: string } {
  if (!(Number.isInteger(graceMs) && graceMs >= 0))
    throw new KeyStoreError("invalid", "a grace period is a duration such as 24h, or 0");
  const secret = generateSecret();
  const grace = graceMs > 0;
  return {
    secret,
    row: {
      ...row,
      secret_hash: hashSecret(secret),
      prefix: displayPrefix(secret),
      previous_secret_hash: grace ? row.secret_hash : null,
      previous_secret_ends_at: grace ? new Date(now.getTime() + graceMs).toISOString() : null,
    },
  };
}

/** The named parameters of KEY_SETTINGS_ASSIGNMENTS, and the id. */
export function settingsOf(row: KeyRow): Record<string, string | number | null> {
  const {
    id,
    name,
    secret_hash,
    prefix,
    rate_per_minute,
    ip_quota_per_month,
    permissions,
    expires_at,
    allowed_networks,
    previous_secret_hash,
    previous_secret_ends_at,
  } = row;
  return {
    id,
    name,
    secret_hash,
    prefix,
    rate_per_minute,
    ip_quota_per_month,
    permissions,
    expires_at,
    allowed_networks,
    previous_secret_hash,
    previous_secret_ends_at,
  };
}

/** keyNamed, for the rows of a store. */
export function keyRowNamed(name: string, named: readonly KeyRow[]): KeyRow {
  const { id } = keyNamed(name, named.map(toRecord));
  return named.find((row) => row.id === id)!;
}

/** What the authenticator's index needs of a row: the key, its secret's hash and a rotation's previous one. */
export function keyEntryOf(row: KeyRow): KeyEntry {
  return { key: toRecord(row), secretHash: row.secret_hash, previousSecretHash: row.previous_secret_hash };
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
    lastUsedIp: row.last_used_ip,
    expiresAt: row.expires_at,
    allowedNetworks: row.allowed_networks === null ? [] : row.allowed_networks.split(","),
    previousSecretEndsAt: row.previous_secret_ends_at,
  };
}
