import type { SQL } from "bun";
import type { LeaseRequest, QuotaLeaseStore } from "../../limits/leased-monthly-quota.ts";
import { boundedTransaction } from "./bounded-transaction.ts";

/**
 * The shared count behind the instances' quota leases: per key and month, the checks
 * used or leased. Each lease holds the key's row lock for its transaction, so two
 * instances asking at once are served one after the other and never past the limit.
 * Leases and give-backs are bounded transactions: one that waits for the lock past its
 * bound fails, and the instance serves from what it holds until a later one succeeds.
 */
export class PostgresQuotaLeases implements QuotaLeaseStore {
  constructor(private readonly sql: SQL) {}

  lease({ keyId, month, want, owed, limit }: LeaseRequest): Promise<{ granted: number; charged: number }> {
    return boundedTransaction(this.sql, async (tx) => {
      const [{ charged }] = await tx<{ charged: number }[]>`
        INSERT INTO quota_leases (key_id, month, charged) VALUES (${keyId}, ${month}, 0)
        ON CONFLICT (key_id, month) DO UPDATE SET charged = quota_leases.charged
        RETURNING charged::float8 AS charged`;
      const granted = Math.max(0, Math.min(want, limit - charged - owed));
      const total = charged + owed + granted;
      if (total !== charged)
        await tx`UPDATE quota_leases SET charged = ${total} WHERE key_id = ${keyId} AND month = ${month}`;
      return { granted, charged: total };
    });
  }

  async chargedIn(month: string): Promise<Map<string, number>> {
    const rows = await this.sql<
      { key_id: string; charged: number }[]
    >`SELECT key_id, charged::float8 AS charged FROM quota_leases WHERE month = ${month}`;
    return new Map(rows.map((r) => [r.key_id, r.charged]));
  }

  async giveBack(unused: readonly { keyId: string; month: string; count: number }[]): Promise<void> {
    if (unused.length === 0) return;
    const rows = JSON.stringify(
      [...unused]
        .sort((a, b) => (a.keyId < b.keyId ? -1 : 1))
        .map((u) => ({ key_id: u.keyId, month: u.month, count: u.count })),
    );
    await boundedTransaction(this.sql, async (tx) => {
      await tx`INSERT INTO quota_leases (key_id, month, charged)
               SELECT key_id, month, 0 FROM json_to_recordset(${rows}::text::json) AS r(key_id text, month text)
               ON CONFLICT (key_id, month) DO NOTHING`;
      await tx`UPDATE quota_leases q SET charged = GREATEST(0, q.charged - r.count)
               FROM json_to_recordset(${rows}::text::json) AS r(key_id text, month text, count bigint)
               WHERE q.key_id = r.key_id AND q.month = r.month`;
    });
  }
}
