import type { Database } from "bun:sqlite";
import type { Writes } from "./lock-wait.ts";
import {
  MAX_SESSION_TOKEN_LENGTH,
  type Session,
  type SessionStore,
  liveSession,
  newSession,
  sessionDigest,
} from "../../dashboard/sessions.ts";

export class SqliteSessionStore implements SessionStore {
  constructor(
    private readonly db: Database,
    private readonly writes: Writes,
  ) {}

  async create(nowMs: number): Promise<{ token: string; session: Session }> {
    const { token, session, row } = newSession(nowMs);
    const store = this.db.transaction(() => {
      this.db.query("DELETE FROM admin_sessions WHERE expires_at <= ?").run(row.created_at);
      this.db
        .query("INSERT INTO admin_sessions (token_hash, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?)")
        .run(row.token_hash, row.csrf_token, row.created_at, row.expires_at);
    });
    await this.writes.run(() => store.immediate());
    return { token, session };
  }

  async find(token: string | undefined, nowMs: number): Promise<Session | null> {
    if (!token || token.length > MAX_SESSION_TOKEN_LENGTH) return null;
    return liveSession(
      this.db
        .query<{ csrf_token: string; expires_at: string }, [string]>(
          "SELECT csrf_token, expires_at FROM admin_sessions WHERE token_hash = ?",
        )
        .get(sessionDigest(token)),
      nowMs,
    );
  }

  async destroy(token: string | undefined): Promise<void> {
    if (token)
      await this.writes.run(() =>
        this.db.query("DELETE FROM admin_sessions WHERE token_hash = ?").run(sessionDigest(token)),
      );
  }
}
