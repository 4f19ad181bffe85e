import type { KeyEntry } from "../keys/key-authenticator.ts";
import type { KeyRecord } from "../keys/key-record.ts";
import { type Checked, type ColumnValue, KEY_SETTING_ROWS, type KeySettings } from "../keys/key-settings.ts";
import { type KeyChanges, KeyStoreError, type NewKey, keyNamed } from "../keys/key-store.ts";
import { displayPrefix, generateSecret, hashSecret } from "../keys/secret.ts";
import { MAX_GRACE_MS } from "../keys/rotation-grace.ts";

/**
 * A key as both databases store it: its state, and a column for each of its settings
 * (src/keys/key-settings.ts names them).
 */
export interface KeyRow {
  [settingColumn: string]: ColumnValue;
  id: string;
  name: string;
  secret_hash: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  last_used_ip: string | null;
  /** The secret a rotation replaced, working until previous_secret_ends_at. */
  previous_secret_hash: string | null;
  previous_secret_ends_at: string | null;
}

/** The columns `update` and `rotate` write besides the settings'. */
const SECRET_COLUMNS = ["secret_hash", "prefix", "previous_secret_hash", "previous_secret_ends_at"];
const SETTING_COLUMNS = KEY_SETTING_ROWS.map(([, s]) => s.column);
const WRITTEN_COLUMNS = [...SETTING_COLUMNS, ...SECRET_COLUMNS];

export const KEY_COLUMNS = ["id", "created_at", "last_used_at", "revoked_at", "last_used_ip", ...WRITTEN_COLUMNS].join(
  ", ",
);

/** The columns `update` and `rotate` write, as named parameters. */
export const KEY_SETTINGS_ASSIGNMENTS = WRITTEN_COLUMNS.map((c) => `${c} = $${c}`).join(", ");

/** A new key's row and its secret, which is returned once and never stored. */
export function newKeyRow(input: NewKey, now: Date): { row: KeyRow; secret: string } {
  const secret = generateSecret();
  const settings: Record<string, ColumnValue> = {};
  for (const [name, s] of KEY_SETTING_ROWS) {
    const given = (input as Partial<KeySettings>)[name];
    if (given === undefined && s.default === undefined) throw new KeyStoreError("invalid", `a key needs its ${name}`);
    settings[s.column] = s.toColumn(checked(s.check(given === undefined ? s.default : given)));
  }
  const row: KeyRow = {
    ...settings,
    id: `key_${Buffer.from(crypto.getRandomValues(new Uint8Array(9))).toString("base64url")}`,
    name: settings.name as string,
    secret_hash: hashSecret(secret),
    prefix: displayPrefix(secret),
    created_at: now.toISOString(),
    last_used_at: null,
    revoked_at: null,
    last_used_ip: null,
    previous_secret_hash: null,
    previous_secret_ends_at: null,
  };
  return { row, secret };
}

/** The value as the store keeps it; throws on a bad one. */
function checked<T>(result: Checked<T>): T {
  if ("error" in result) throw new KeyStoreError("invalid", result.error);
  return result.value;
}

/** The row after `changes`; throws on a bad value. The name's uniqueness is the store's to check. */
export function updatedRow(row: KeyRow, changes: KeyChanges): KeyRow {
  const updated: KeyRow = { ...row };
  for (const [name, s] of KEY_SETTING_ROWS) {
    const value = (changes as Partial<KeySettings>)[name];
    if (value !== undefined) updated[s.column] = s.toColumn(checked(s.check(value)));
  }
  return updated;
}

/** The row with a new secret; the current one becomes the previous, working for `graceMs`. */
export function rotatedRow(row: KeyRow, graceMs: number, now: Date): { row: KeyRow; secret: string } {
  if (!(Number.isInteger(graceMs) && graceMs >= 0 && graceMs <= MAX_GRACE_MS))
    throw new KeyStoreError("invalid", "a grace period is a duration such as 24h, at most 30 days, or 0");
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
export function settingsOf(row: KeyRow): Record<string, ColumnValue> {
  return Object.fromEntries([["id", row.id], ...WRITTEN_COLUMNS.map((c) => [c, row[c]])]);
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
  const settings = Object.fromEntries(KEY_SETTING_ROWS.map(([name, s]) => [name, s.fromColumn(row[s.column])]));
  return {
    ...(settings as unknown as KeySettings),
    id: row.id,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    lastUsedIp: row.last_used_ip,
    previousSecretEndsAt: row.previous_secret_ends_at,
  };
}
