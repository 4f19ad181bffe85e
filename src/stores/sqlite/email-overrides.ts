import type { Database } from "bun:sqlite";
import { type OverrideLine, type OverrideRow, type OverrideStore, lineOfRow } from "../../email/overrides.ts";

export class SqliteOverrideStore implements OverrideStore {
  constructor(private readonly db: Database) {}

  async list(): Promise<OverrideLine[]> {
    return this.db
      .query<OverrideRow, []>(
        "SELECT domain, action, reason, author, created_at, until FROM email_overrides ORDER BY domain",
      )
      .all()
      .map(lineOfRow);
  }

  async put(line: OverrideLine): Promise<void> {
    this.db
      .query(
        `INSERT INTO email_overrides (domain, action, reason, author, created_at, until) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (domain) DO UPDATE SET action = excluded.action, reason = excluded.reason, author =
           excluded.author, created_at = excluded.created_at, until = excluded.until`,
      )
      .run(line.domain, line.action, line.reason, line.author, line.created, line.until);
  }

  async remove(domain: string): Promise<boolean> {
    return this.db.query("DELETE FROM email_overrides WHERE domain = ?").run(domain).changes > 0;
  }
}
