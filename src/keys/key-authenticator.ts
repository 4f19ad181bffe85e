import type { KeyRecord } from "./key-record.ts";
import { digestOfStoredHash, looksLikeSecret, secretDigest } from "./secret.ts";

export type Authentication =
  | { readonly outcome: "active"; readonly key: KeyRecord }
  | { readonly outcome: "revoked"; readonly key: KeyRecord }
  | { readonly outcome: "expired"; readonly key: KeyRecord }
  | { readonly outcome: "unknown" };

/** What a secret means until `untilMs`, and from then on. */
export interface IndexEntry {
  readonly now: Authentication;
  readonly untilMs: number;
  readonly afterwards: Authentication;
}

/** Every working secret (a key's, and a rotation's previous one) by its digest (see secretDigest). */
export type KeyIndex = ReadonlyMap<string, IndexEntry>;

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

const timeOf = (iso: string | null) => (iso === null ? Number.POSITIVE_INFINITY : Date.parse(iso));

/** A stored key as the index needs it: the record, its secret's stored hash, and a rotation's previous one. */
export interface KeyEntry {
  readonly key: KeyRecord;
  readonly secretHash: string;
  readonly previousSecretHash: string | null;
}

/**
 * The index of these keys. A key past its expiry is "expired"; a rotation's previous
 * secret works until its grace ends (or the key expires, if sooner), then is unknown.
 */
export function keyIndexOf(entries: Iterable<KeyEntry>): KeyIndex {
  const index = new Map<string, IndexEntry>();
  for (const { key, secretHash, previousSecretHash } of entries) {
    if (key.revokedAt !== null) {
      const revoked: Authentication = Object.freeze({ outcome: "revoked", key });
      index.set(
        digestOfStoredHash(secretHash),
        Object.freeze({ now: revoked, untilMs: Number.POSITIVE_INFINITY, afterwards: revoked }),
      );
      continue;
    }
    const active: Authentication = Object.freeze({ outcome: "active", key });
    const expired: Authentication = Object.freeze({ outcome: "expired", key });
    const expiresMs = timeOf(key.expiresAt);
    index.set(digestOfStoredHash(secretHash), Object.freeze({ now: active, untilMs: expiresMs, afterwards: expired }));
    const previousEndsMs = timeOf(key.previousSecretEndsAt);
    if (previousSecretHash !== null && previousEndsMs !== Number.POSITIVE_INFINITY) {
      const entry =
        previousEndsMs <= expiresMs
          ? { now: active, untilMs: previousEndsMs, afterwards: UNKNOWN }
          : { now: active, untilMs: expiresMs, afterwards: expired };
      index.set(digestOfStoredHash(previousSecretHash), Object.freeze(entry));
    }
  }
  return index;
}

/**
 * Answers "which key is this?" from memory. Lookup is by SHA-256 of the presented
 * token, so response time depends on the digest, not on how much of a real secret
 * an attacker guessed: no constant-time comparison of secrets is needed.
 */
export class KeyAuthenticator {
  /** Per index read: each key that is not revoked, and when it expires (its reports count until then). */
  private counting: { readonly of: KeyIndex; readonly untilMs: ReadonlyMap<string, number> } | null = null;

  constructor(
    private readonly keys: KeyIndexSource,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the key of this id exists, is not revoked and has not expired: what lets its reports count. */
  isActive(keyId: string): boolean {
    const index = this.keys.current();
    if (this.counting?.of !== index) {
      const untilMs = new Map<string, number>();
      for (const { now } of index.values())
        if (now.outcome === "active") untilMs.set(now.key.id, timeOf(now.key.expiresAt));
      this.counting = { of: index, untilMs };
    }
    return this.now() < (this.counting.untilMs.get(keyId) ?? Number.NEGATIVE_INFINITY);
  }

  authenticate(token: string): Authentication {
    if (!looksLikeSecret(token)) return UNKNOWN;
    const digest = secretDigest(token);
    const entry = this.keys.current().get(digest) ?? this.keys.afterMiss().get(digest);
    if (entry === undefined) return UNKNOWN;
    return entry.untilMs === Number.POSITIVE_INFINITY || this.now() < entry.untilMs ? entry.now : entry.afterwards;
  }
}
