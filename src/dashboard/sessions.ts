import type { Database } from "bun:sqlite";
import { timingSafeEqual } from "node:crypto";

export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

export interface Session {
  readonly csrfToken: string;
  readonly expiresAt: string;
}

export function randomToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

function digest(token: string): string {
  return new Bun.CryptoHasher("sha256").update(token).digest("hex");
}

export function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Dashboard sessions, kept server-side by the hash of the cookie's token. */
export class SessionStore {
  constructor(private readonly db: Database) {}

  create(nowMs: number): { token: string; session: Session } {
    const token = randomToken();
    const session = { csrfToken: randomToken(), expiresAt: new Date(nowMs + SESSION_LIFETIME_MS).toISOString() };
    this.db.query("DELETE FROM admin_sessions WHERE expires_at <= ?").run(new Date(nowMs).toISOString());
    this.db
      .query("INSERT INTO admin_sessions (token_hash, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?)")
      .run(digest(token), session.csrfToken, new Date(nowMs).toISOString(), session.expiresAt);
    return { token, session };
  }

  find(token: string | undefined, nowMs: number): Session | null {
    if (!token || token.length > 100) return null;
    const row = this.db
      .query<{ csrf_token: string; expires_at: string }, [string]>("SELECT csrf_token, expires_at FROM admin_sessions WHERE token_hash = ?")
      .get(digest(token));
    if (!row || Date.parse(row.expires_at) <= nowMs) return null;
    return { csrfToken: row.csrf_token, expiresAt: row.expires_at };
  }

  destroy(token: string | undefined): void {
    if (token) this.db.query("DELETE FROM admin_sessions WHERE token_hash = ?").run(digest(token));
  }
}
