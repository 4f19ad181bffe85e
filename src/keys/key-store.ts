import type { KeyRecord } from "./key-record.ts";
import type { Permission } from "./permissions.ts";

/** Why a key store refused: the input, a name that names several keys or none, a key revoked already. */
export type KeyStoreProblem = "invalid" | "ambiguous_name" | "not_found" | "already_revoked";

export class KeyStoreError extends Error {
  constructor(
    readonly problem: KeyStoreProblem,
    message: string,
  ) {
    super(message);
  }
}

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

/**
 * The largest per-key rate or quota: PostgreSQL's INTEGER, so a key that SQLite accepts
 * can be moved to PostgreSQL (`db migrate`) and the other way round.
 */
export const MAX_KEY_LIMIT = 2_147_483_647;

export function alreadyRevoked(key: KeyRecord): KeyStoreError {
  return new KeyStoreError("already_revoked", `key ${key.id} ("${key.name}") was already revoked at ${key.revokedAt}`);
}
