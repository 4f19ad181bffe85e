import type { SQL } from "bun";
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

/** Failed sign-ins per client in PostgreSQL: a lock-out holds on every instance. */
export class PostgresSignInThrottle implements SignInThrottle {
  constructor(
    private readonly sql: SQL,
    private readonly policy: ThrottlePolicy = DEFAULT_THROTTLE,
  ) {}

  begin(address: string, nowMs: number): Promise<SignInAttempt> {
    const client = throttledClient(address);
    return this.sql.begin(async (tx) => {
      // The client's row, locked until commit: attempts at once on several instances take turns.
      await tx`INSERT INTO sign_in_failures (client, failures, window_start, locked_until, lockouts, last_failure)
               VALUES (${client}, 0, ${nowMs}, 0, 0, ${nowMs}) ON CONFLICT (client) DO NOTHING`;
      const [row] = await tx<ClientRow[]>`
        SELECT failures, window_start::float8 AS window_start, locked_until::float8 AS locked_until, lockouts
        FROM sign_in_failures WHERE client = ${client} FOR UPDATE`;
      const result = attempt(row, nowMs, this.policy);
      if ("wait" in result) return { wait: result.wait, lockedIfWrong: false };
      const { next } = result;
      await tx`DELETE FROM sign_in_failures WHERE last_failure < ${nowMs - this.policy.forgetAfterMs} AND locked_until
        <= ${nowMs} AND client <> ${client}`;
      await tx`UPDATE sign_in_failures SET failures = ${next.failures}, window_start = ${next.window_start},
        locked_until = ${next.locked_until},
               lockouts = ${next.lockouts}, last_failure = ${nowMs} WHERE client = ${client}`;
      return { wait: 0, lockedIfWrong: next.locked_until > nowMs };
    });
  }

  async unlock(address: string | null, nowMs: number): Promise<string[]> {
    const client = address === null ? null : throttledClient(address);
    const removed = await this.sql<{ client: string; locked_until: number }[]>`
      DELETE FROM sign_in_failures WHERE ${client}::text IS NULL OR client = ${client} RETURNING client,
        locked_until::float8 AS locked_until`;
    return lockedOut(removed, nowMs);
  }
}
