import type { Database } from "bun:sqlite";
import type { Writes } from "./lock-wait.ts";
import type { AdminPasswordStore } from "../../dashboard/admin-password.ts";

export class SqliteAdminPasswordStore implements AdminPasswordStore {
  constructor(
    private readonly db: Database,
    private readonly writes: Writes,
  ) {}

  async passwordHash(): Promise<string | null> {
    return (
      this.db.query<{ password_hash: string }, []>("SELECT password_hash FROM admin_password WHERE id = 1").get()
        ?.password_hash ?? null
    );
  }

  async replacePasswordHash(hash: string, now: Date): Promise<void> {
    const replace = this.db.transaction(() => {
      this.db
        .query(
          "INSERT INTO admin_password (id, password_hash, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE " +
            "SET password_hash = excluded.password_hash, updated_at = excluded.updated_at",
        )
        .run(hash, now.toISOString());
      this.db.exec("DELETE FROM admin_sessions");
    });
    await this.writes.run(() => replace.immediate());
  }
}
