import type { SQL } from "bun";
import type { AdminPasswordStore } from "../../dashboard/admin-password.ts";
import { boundedTransaction } from "./bounded-transaction.ts";

export class PostgresAdminPasswordStore implements AdminPasswordStore {
  constructor(private readonly sql: SQL) {}

  async passwordHash(): Promise<string | null> {
    const [row] = await this.sql<{ password_hash: string }[]>`SELECT password_hash FROM admin_password WHERE id = 1`;
    return row?.password_hash ?? null;
  }

  async replacePasswordHash(hash: string, now: Date): Promise<void> {
    await boundedTransaction(this.sql, async (tx) => {
      await tx`INSERT INTO admin_password (id, password_hash, updated_at) VALUES (1, ${hash}, ${now.toISOString()})
               ON CONFLICT (id) DO UPDATE SET password_hash = excluded.password_hash, updated_at = excluded.updated_at`;
      await tx`DELETE FROM admin_sessions`;
    });
  }
}
