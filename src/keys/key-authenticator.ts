import type { KeyRecord } from "./key-record.ts";
import { digestOfStoredHash, looksLikeSecret, secretDigest } from "./secret.ts";

export type Authentication =
  | { readonly outcome: "active"; readonly key: KeyRecord }
  | { readonly outcome: "revoked"; readonly key: KeyRecord }
  | { readonly outcome: "unknown" };

/** Every key by the digest of its secret (see secretDigest). */
export type KeyIndex = ReadonlyMap<string, Authentication>;

/**
 * Where the authenticator's index comes from, kept fresh the way the database allows:
 * SQLite rereads when a shared counter moved, PostgreSQL reloads when notified.
 * Both answer from memory.
 */
export interface KeyIndexSource {
  current(): KeyIndex;
  /** After a miss: the index again, reread first if a new key may have been missed. */
  afterMiss(): KeyIndex;
}

const UNKNOWN: Authentication = Object.freeze({ outcome: "unknown" });

/** The index of these keys, given by stored hash. */
export function keyIndexOf(keys: Iterable<readonly [string, KeyRecord]>): KeyIndex {
  const index = new Map<string, Authentication>();
  for (const [hash, key] of keys) index.set(digestOfStoredHash(hash), Object.freeze({ outcome: key.revokedAt ? "revoked" : "active", key }));
  return index;
}

/**
 * Answers "which key is this?" from memory. Lookup is by SHA-256 of the presented
 * token, so response time depends on the digest, not on how much of a real secret
 * an attacker guessed: no constant-time comparison of secrets is needed.
 */
export class KeyAuthenticator {
  constructor(private readonly keys: KeyIndexSource) {}

  authenticate(token: string): Authentication {
    if (!looksLikeSecret(token)) return UNKNOWN;
    const digest = secretDigest(token);
    return this.keys.current().get(digest) ?? this.keys.afterMiss().get(digest) ?? UNKNOWN;
  }
}
