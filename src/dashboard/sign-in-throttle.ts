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

/** What is stored about a client's failed sign-ins. */
export interface ClientRow {
  failures: number;
  window_start: number;
  locked_until: number;
  lockouts: number;
}

/**
 * An attempt's turn: the milliseconds the client must still wait (the attempt is refused), or 0 and whether a wrong
 * password now locks it out.
 */
export interface SignInAttempt {
  readonly wait: number;
  readonly lockedIfWrong: boolean;
}

/** Failed sign-ins per client, shared by every instance and by `riskcheck admin unlock`. */
export interface SignInThrottle {
  /**
   * Counts an attempt as failed before its password is checked, so attempts sent in
   * parallel cannot get past the limit while the checks run; a success clears it.
   * A client that must still wait is refused, and the attempt not counted.
   */
  begin(address: string, nowMs: number): Promise<SignInAttempt>;
  /**
   * Forgets the failures of one client (an address, or any address of an IPv6 /64),
   * or of every client when `address` is null; returns the clients that were locked out.
   */
  unlock(address: string | null, nowMs: number): Promise<string[]>;
}

/** A new attempt against the client's row (null: none yet): the wait to answer, or the row to store. */
export function attempt(
  row: ClientRow | null,
  nowMs: number,
  policy: ThrottlePolicy,
): { wait: number } | { next: ClientRow } {
  if (row && row.locked_until > nowMs) return { wait: row.locked_until - nowMs };
  const next =
    !row || nowMs - row.window_start > policy.windowMs
      ? { failures: 0, window_start: nowMs, locked_until: 0, lockouts: row?.lockouts ?? 0 }
      : { ...row };
  next.failures++;
  if (next.failures >= policy.failures) {
    next.locked_until = nowMs + Math.min(policy.maxLockMs, policy.lockMs * 2 ** next.lockouts);
    next.lockouts++;
    next.failures = 0;
    next.window_start = nowMs;
  }
  return { next };
}

/** The clients `unlock` removed that were locked out at `nowMs`, sorted. */
export function lockedOut(removed: readonly { client: string; locked_until: number }[], nowMs: number): string[] {
  return removed
    .filter((r) => r.locked_until > nowMs)
    .map((r) => r.client)
    .sort();
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
