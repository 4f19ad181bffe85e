import type { SQL } from "bun";
import {
  MAX_SESSION_TOKEN_LENGTH,
  type Session,
  type SessionStore,
  liveSession,
  newSession,
  sessionDigest,
} from "../../dashboard/sessions.ts";

export class PostgresSessionStore implements SessionStore {
  constructor(private readonly sql: SQL) {}

  async create(nowMs: number): Promise<{ token: string; session: Session }> {
    const { token, session, row } = newSession(nowMs);
    await this.sql`DELETE FROM admin_sessions WHERE expires_at <= ${row.created_at}`;
    await this.sql`INSERT INTO admin_sessions ${this.sql(row)}`;
    return { token, session };
  }

  async find(token: string | undefined, nowMs: number): Promise<Session | null> {
    if (!token || token.length > MAX_SESSION_TOKEN_LENGTH) return null;
    const [row] = await this.sql<
      { csrf_token: string; expires_at: string }[]
    >`SELECT csrf_token, expires_at FROM admin_sessions WHERE token_hash = ${sessionDigest(token)}`;
    return liveSession(row, nowMs);
  }

  async destroy(token: string | undefined): Promise<void> {
    if (token) await this.sql`DELETE FROM admin_sessions WHERE token_hash = ${sessionDigest(token)}`;
  }
}
