import type { SQL, TransactionSQL } from "bun";
import { storageFaultOf } from "../../faults/storage-fault.ts";

/** How long a statement of a bounded transaction may run, wait for a lock, or leave its transaction idle. */
export interface TransactionBounds {
  readonly statementMs: number;
  readonly lockMs: number;
  readonly idleMs: number;
}

/**
 * For lease and key transactions: a lease holds its key's row lock, so without a bound one
 * stuck transaction (a frozen instance, a hand-run BEGIN left open) would park that key's
 * quota refills on every instance. Normal ones take milliseconds.
 */
export const SERVING_BOUNDS: TransactionBounds = { statementMs: 5_000, lockMs: 2_000, idleMs: 10_000 };

/** The clients of the acts' transactions (`actTransaction`): a store given one works in that transaction. */
const ACTS = new WeakSet<SQL>();

/**
 * A transaction whose statements fail with PostgreSQL's own error (`canceling statement due to
 * statement timeout` / `lock timeout`) past the bounds, and that the server ends should it sit
 * idle past them. The settings are local to the transaction (SET LOCAL), so the connection goes
 * back to the pool as it was. Inside an act, the work joins the act's transaction, bounded already.
 */
export function boundedTransaction<T>(
  sql: SQL,
  work: (tx: TransactionSQL) => Promise<T>,
  bounds: TransactionBounds = SERVING_BOUNDS,
): Promise<T> {
  if (ACTS.has(sql)) return work(sql as TransactionSQL);
  return sql.begin(async (tx) => {
    await tx`SELECT set_config('statement_timeout', ${`${bounds.statementMs}ms`}, true),
                    set_config('lock_timeout', ${`${bounds.lockMs}ms`}, true),
                    set_config('idle_in_transaction_session_timeout', ${`${bounds.idleMs}ms`}, true)`;
    return work(tx);
  });
}

/**
 * An act's transaction (`Stores.transaction`): bounded, and a failure of the database a
 * StorageUnavailable that says whether the work may have been committed — only when the
 * connection was lost once the work was done and its COMMIT on its way.
 */
export async function actTransaction<T>(sql: SQL, work: (tx: TransactionSQL) => Promise<T>): Promise<T> {
  let committing = false;
  try {
    return await boundedTransaction(sql, async (tx) => {
      ACTS.add(tx);
      const result = await work(tx);
      committing = true;
      return result;
    });
  } catch (err) {
    const fault = storageFaultOf(err);
    if (fault === null) throw err;
    throw fault.withOutcome(committing && fault.outcome === "unknown" ? "unknown" : "not_done");
  }
}
