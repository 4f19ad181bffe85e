import type { KeyRecord } from "./key-record.ts";
import type { KeySettingName, KeySettings } from "./key-settings.ts";

/**
 * Why a key store refused: the input, a name that names several keys or none, a key revoked
 * already, a name another active key has, a change to a revoked key.
 */
export type KeyStoreProblem = "invalid" | "ambiguous_name" | "not_found" | "already_revoked" | "name_taken" | "revoked";

export class KeyStoreError extends Error {
  constructor(
    readonly problem: KeyStoreProblem,
    message: string,
  ) {
    super(message);
  }
}

/** A new key's settings: its name, and those left out take their defaults (src/keys/key-settings.ts). */
export type NewKey = { name: string } & { -readonly [K in Exclude<KeySettingName, "name">]?: KeySettings[K] };

/** What `keys update` changes; a field left out stays as it is, null returns a limit to the default or removes the expiry. */
export type KeyChanges = Partial<NewKey>;

/** A change to a key as it was and as it is now (what an audit log records; never a secret). */
export interface KeyChange {
  readonly before: KeyRecord;
  readonly after: KeyRecord;
}

/** API keys where the dashboard and the CLI manage them: SQLite or PostgreSQL. */
export interface KeyStore {
  create(input: NewKey, now?: Date): Promise<{ key: KeyRecord; secret: string }>;
  list(): Promise<KeyRecord[]>;
  find(id: string): Promise<KeyRecord | null>;
  /** Revokes by id, or by name when exactly one active key has that name. */
  revoke(idOrName: string, now?: Date): Promise<KeyRecord>;
  /** Changes the key's settings (the id, secret and usage stay); by id or name as revoke. */
  update(idOrName: string, changes: KeyChanges): Promise<KeyChange>;
  /**
   * A new secret for the same key; the current one keeps working for `graceMs` (0: not at
   * all), replacing the previous secret of a rotation still in progress.
   */
  rotate(idOrName: string, graceMs: number, now?: Date): Promise<KeyChange & { secret: string }>;
}

/**
 * The key a name means: the one active key of that name, else a revoked one (so the error
 * can say it was already revoked). `named` is every key with that name, oldest first. Names
 * are unique among active keys from this version on; two active keys of one name from
 * before are refused by name, with their ids, never guessed.
 */
export function keyNamed(name: string, named: readonly KeyRecord[]): KeyRecord {
  const active = named.filter((key) => key.revokedAt === null);
  if (active.length > 1)
    throw new KeyStoreError(
      "ambiguous_name",
      `${active.length} active keys are named "${name}" (${active.map((k) => k.id).join(", ")}), made before ` +
        `names had to be unique; use the id`,
    );
  const chosen = active[0] ?? named[0];
  if (chosen === undefined)
    throw new KeyStoreError("not_found", `no key has the id or name "${name}"; see "riskcheck keys list"`);
  return chosen;
}

export function alreadyRevoked(key: KeyRecord): KeyStoreError {
  return new KeyStoreError("already_revoked", `key ${key.id} ("${key.name}") was already revoked at ${key.revokedAt}`);
}

/** The refusal when another active key (`holder`) already has the name. */
export function nameTaken(name: string, holder: { id: string }): KeyStoreError {
  return new KeyStoreError(
    "name_taken",
    `an active key is already named "${name}" (${holder.id}); choose another name, or revoke or rename that key first`,
  );
}

/** The refusal to change a revoked key. */
export function revokedCannotChange(key: KeyRecord): KeyStoreError {
  return new KeyStoreError(
    "revoked",
    `key ${key.id} ("${key.name}") was revoked at ${key.revokedAt}; a revoked key cannot be changed, create a new one`,
  );
}
