import type { SQL } from "bun";
import { type OverrideLine, type OverrideRow, type OverrideStore, lineOfRow } from "../../email/overrides.ts";

export class PostgresOverrideStore implements OverrideStore {
  constructor(private readonly sql: SQL) {}

  async list(): Promise<OverrideLine[]> {
    const rows = await this.sql<
      OverrideRow[]
    >`SELECT domain, action, reason, author, created_at, until FROM email_overrides ORDER BY domain`;
    return rows.map(lineOfRow);
  }

  async put(line: OverrideLine): Promise<void> {
    await this.sql`INSERT INTO email_overrides (domain, action, reason, author, created_at, until)
                   VALUES (${line.domain}, ${line.action}, ${line.reason}, ${line.author}, ${line.created}, ${line.until})
                   ON CONFLICT (domain) DO UPDATE SET action = excluded.action, reason = excluded.reason, author =
                     excluded.author, created_at = excluded.created_at, until = excluded.until`;
  }

  async remove(domain: string): Promise<boolean> {
    const rows = await this.sql`DELETE FROM email_overrides WHERE domain = ${domain} RETURNING domain`;
    return rows.length > 0;
  }
}
