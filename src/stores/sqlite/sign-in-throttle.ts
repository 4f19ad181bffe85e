import type { Database } from "bun:sqlite";
import type { Writes } from "./lock-wait.ts";
import {
  type ClientRow,
  DEFAULT_THROTTLE,
  type SignInAttempt,
  type SignInThrottle,
  type ThrottlePolicy,
  attempt,
  lockedOut,
  throttledClient,
} from "../../dashboard/sign-in-throttle.ts";

/**
 * Failed sign-ins per client, in SQLite: a restart does not lift a lock-out, and
 * `riskcheck admin unlock` reaches a running server through the same table.
 */
export class SqliteSignInThrottle implements SignInThrottle {
  constructor(
    private readonly db: Database,
    private readonly writes: Writes,
    private readonly policy: ThrottlePolicy = DEFAULT_THROTTLE,
  ) {}

  async begin(address: string, nowMs: number): Promise<SignInAttempt> {
    const client = throttledClient(address);
    const begin = this.db.transaction(() => {
      const row = this.db
        .query<ClientRow, [string]>(
          "SELECT failures, window_start, locked_until, lockouts FROM sign_in_failures WHERE client = ?",
        )
        .get(client);
      const result = attempt(row, nowMs, this.policy);
      if ("wait" in result) return { wait: result.wait, lockedIfWrong: false };
      const { next } = result;
      this.db
        .query("DELETE FROM sign_in_failures WHERE last_failure < ? AND locked_until <= ?")
        .run(nowMs - this.policy.forgetAfterMs, nowMs);
      this.db
        .query(
          "INSERT OR REPLACE INTO sign_in_failures (client, failures, window_start, locked_until, lockouts, " +
            "last_failure) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .run(client, next.failures, next.window_start, next.locked_until, next.lockouts, nowMs);
      return { wait: 0, lockedIfWrong: next.locked_until > nowMs };
    });
    return await this.writes.run(() => begin.immediate());
  }

  async unlock(address: string | null, nowMs: number): Promise<string[]> {
    const removed = await this.writes.run(() =>
      this.db
        .query<{ client: string; locked_until: number }, [string | null]>(
          "DELETE FROM sign_in_failures WHERE ?1 IS NULL OR client = ?1 RETURNING client, locked_until",
        )
        .all(address === null ? null : throttledClient(address)),
    );
    return lockedOut(removed, nowMs);
  }
}
