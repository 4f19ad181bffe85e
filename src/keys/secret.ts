const SECRET_PREFIX = "rk_";
const SECRET_BYTES = 32;
/** "rk_" + 43 base64url characters. */
const SECRET_LENGTH = SECRET_PREFIX.length + Math.ceil((SECRET_BYTES * 4) / 3);
const DISPLAY_LENGTH = SECRET_PREFIX.length + 6;

export function generateSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
  return SECRET_PREFIX + Buffer.from(bytes).toString("base64url");
}

/** Only this digest is stored; the secret cannot be recovered from it. */
export function hashSecret(secret: string): string {
  return Bun.SHA256.hash(secret, "hex");
}

/**
 * The same digest in base64, which the authenticator's in-memory index is keyed by: on
 * every request the 44-character form is quicker to make and look up than the
 * 64-character hex form.
 */
export function secretDigest(secret: string): string {
  return Bun.SHA256.hash(secret, "base64");
}

/** secretDigest of the secret whose stored hash this is. */
export function digestOfStoredHash(hex: string): string {
  return Buffer.from(hex, "hex").toString("base64");
}

/** The non-secret part shown in listings so people can tell their keys apart. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_LENGTH);
}

export function looksLikeSecret(token: string): boolean {
  return token.length === SECRET_LENGTH && token.startsWith(SECRET_PREFIX);
}
