import type { Database } from "bun:sqlite";
import { parseIpAddress } from "../ip/address/parse.ts";

export interface ThrottlePolicy {
  /** Failures allowed inside the window before the client is locked out. */
  readonly failures: number;
  readonly windowMs: number;
  /** First lock-out; each further lock-out of the same client doubles it, up to maxLockMs. */
  readonly lockMs: number;
  readonly maxLockMs: number;
  /** A client with no failure for this long starts afresh (its lock-outs no longer double). */
  readonly forgetAfterMs: number;
}

export const DEFAULT_THROTTLE: ThrottlePolicy = Object.freeze({
  failures: 5,
  windowMs: 15 * 60_000,
  lockMs: 60_000,
  maxLockMs: 60 * 60_000,
  forgetAfterMs: 24 * 60 * 60_000,
});

interface ClientRow {
  failures: number;
  window_start: number;
  locked_until: number;
  lockouts: number;
}

/**
 * Who a lock-out applies to: an IPv4 address, or the /64 of an IPv6 address (one
 * subscriber's allocation, which a single attacker can otherwise walk through).
 */
export function throttledClient(address: string): string {
  const ip = parseIpAddress(address);
  if (ip?.version !== 6) return ip?.text ?? address;
  const groups = [ip.v6[0] >>> 16, ip.v6[0] & 0xffff, ip.v6[1] >>> 16, ip.v6[1] & 0xffff];
  return `${parseIpAddress(`${groups.map((g) => g.toString(16)).join(":")}::`)!.text}/64`;
}

/**
 * Failed sign-ins per client, in SQLite: a restart does not lift a lock-out, and
 * `riskcheck admin unlock` reaches a running server through the same table.
 */
export class SignInThrottle {
  constructor(
    private readonly db: Database,
    private readonly policy: ThrottlePolicy = DEFAULT_THROTTLE,
  ) {}

  /**
   * Counts an attempt as failed before its password is checked, so attempts sent in
   * parallel cannot get past the limit while the checks run; a success clears it.
   * Returns the milliseconds the client must still wait (the attempt is refused and
   * not counted), or 0.
   */
  begin(address: string, nowMs: number): number {
    const client = throttledClient(address);
    return this.db
      .transaction(() => {
        const row = this.db
          .query<ClientRow, [string]>("SELECT failures, window_start, locked_until, lockouts FROM sign_in_failures WHERE client = ?")
          .get(client);
        if (row && row.locked_until > nowMs) return row.locked_until - nowMs;
        const next = !row || nowMs - row.window_start > this.policy.windowMs ? { failures: 0, window_start: nowMs, locked_until: 0, lockouts: row?.lockouts ?? 0 } : row;
        next.failures++;
        if (next.failures >= this.policy.failures) {
          next.locked_until = nowMs + Math.min(this.policy.maxLockMs, this.policy.lockMs * 2 ** next.lockouts);
          next.lockouts++;
          next.failures = 0;
          next.window_start = nowMs;
        }
        this.db.query("DELETE FROM sign_in_failures WHERE last_failure < ? AND locked_until <= ?").run(nowMs - this.policy.forgetAfterMs, nowMs);
        this.db
          .query("INSERT OR REPLACE INTO sign_in_failures (client, failures, window_start, locked_until, lockouts, last_failure) VALUES (?, ?, ?, ?, ?, ?)")
          .run(client, next.failures, next.window_start, next.locked_until, next.lockouts, nowMs);
        return 0;
      })
      .immediate();
  }

  /**
   * Forgets the failures of one client (an address, or any address of an IPv6 /64),
   * or of every client when `address` is null; returns the clients that were locked out.
   */
  unlock(address: string | null, nowMs: number): string[] {
    return this.db
      .query<{ client: string; locked_until: number }, [string | null]>("DELETE FROM sign_in_failures WHERE ?1 IS NULL OR client = ?1 RETURNING client, locked_until")
      .all(address === null ? null : throttledClient(address))
      .filter((r) => r.locked_until > nowMs)
      .map((r) => r.client)
      .sort();
  }
}
