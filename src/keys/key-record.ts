import type { KeySettings } from "./key-settings.ts";

/** An API key as the program sees it: the settings the operator chose (src/keys/key-settings.ts) and its state. */
export interface KeyRecord extends KeySettings {
  readonly id: string;
  readonly prefix: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  /** The client address of the last authenticated request (proxies resolved), flushed with usage. */
  readonly lastUsedIp: string | null;
  readonly revokedAt: string | null;
  /** While a rotation's grace lasts: when the previous secret stops working. */
  readonly previousSecretEndsAt: string | null;
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
