export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
/** Longer cookies are not ours: refused before any lookup. */
export const MAX_SESSION_TOKEN_LENGTH = 100;

export interface Session {
  readonly csrfToken: string;
  readonly expiresAt: string;
}

/** Dashboard sessions, kept server-side by the hash of the cookie's token. */
export interface SessionStore {
  create(nowMs: number): Promise<{ token: string; session: Session }>;
  find(token: string | undefined, nowMs: number): Promise<Session | null>;
  destroy(token: string | undefined): Promise<void>;
}

export function randomToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

export function sessionDigest(token: string): string {
  return new Bun.CryptoHasher("sha256").update(token).digest("hex");
}

/** A session as the audit log names it: a short digest of its token (never the token), the same from sign-in to sign-out. */
export function sessionLabel(token: string): string {
  return sessionDigest(token).slice(0, 8);
}

/** A new session's token and row, expiring SESSION_LIFETIME_MS after `nowMs`. */
export function newSession(nowMs: number) {
  const token = randomToken();
  const session: Session = { csrfToken: randomToken(), expiresAt: new Date(nowMs + SESSION_LIFETIME_MS).toISOString() };
  return {
    token,
    session,
    row: {
      token_hash: sessionDigest(token),
      csrf_token: session.csrfToken,
      created_at: new Date(nowMs).toISOString(),
      expires_at: session.expiresAt,
    },
  };
}

/** The session a stored row gives, unless it has expired. */
export function liveSession(
  row: { csrf_token: string; expires_at: string } | undefined | null,
  nowMs: number,
): Session | null {
  if (!row || Date.parse(row.expires_at) <= nowMs) return null;
  return { csrfToken: row.csrf_token, expiresAt: row.expires_at };
}

export function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  // Constant-time: Bun's global crypto.timingSafeEqual, as node:crypto's.
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}
