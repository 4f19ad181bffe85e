import type { Permission } from "./permissions.ts";

export interface KeyRecord {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  /** The client address of the last authenticated request (proxies resolved), flushed with usage. */
  readonly lastUsedIp: string | null;
  readonly revokedAt: string | null;
  /** After this instant the key answers 401 "API key revoked" (the spec's word for revoked or expired). */
  readonly expiresAt: string | null;
  /** CIDRs the key is accepted from (the client address the server resolves); empty: anywhere. */
  readonly allowedNetworks: readonly string[];
  /** While a rotation's grace lasts: when the previous secret stops working. */
  readonly previousSecretEndsAt: string | null;
  /** Per-key overrides; null means the configured default. */
  readonly ratePerMinute: number | null;
  readonly ipQuotaPerMonth: number | null;
  /** What the key may do: `check`, `report`, or both. */
  readonly permissions: readonly Permission[];
}

export type KeyStatus = "active" | "revoked" | "expired";

export function keyStatus(key: KeyRecord, nowMs: number): KeyStatus {
  if (key.revokedAt !== null) return "revoked";
  return key.expiresAt !== null && Date.parse(key.expiresAt) <= nowMs ? "expired" : "active";
}

/** When the previous secret of a rotation in progress stops working, or null when none is in progress. */
export function rotationEndsAt(key: KeyRecord, nowMs: number): string | null {
  return key.previousSecretEndsAt !== null && Date.parse(key.previousSecretEndsAt) > nowMs
    ? key.previousSecretEndsAt
    : null;
}

export const KEY_NAME_MAX_LENGTH = 100;

/** Trims and checks a key name; returns an error sentence or the clean name. */
export function normaliseKeyName(raw: string): { name: string } | { error: string } {
  const name = raw.trim();
  if (name === "") return { error: "a key needs a descriptive name" };
  if (name.length > KEY_NAME_MAX_LENGTH) return { error: `a key name is at most ${KEY_NAME_MAX_LENGTH} characters` };
  // Control characters would corrupt one-line CLI output and logs; format characters (bidi
  // overrides, zero-width ones) and line separators make a name read as something else.
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(name))
    return {
      error: "a key name cannot contain control or invisible formatting characters (such as bidirectional overrides)",
    };
  return { name };
}
