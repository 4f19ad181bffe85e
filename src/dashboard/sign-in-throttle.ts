export interface ThrottlePolicy {
  /** Failures allowed inside the window before the client is locked out. */
  readonly failures: number;
  readonly windowMs: number;
  /** First lock-out; each further lock-out of the same client doubles it, up to maxLockMs. */
  readonly lockMs: number;
  readonly maxLockMs: number;
}

export const DEFAULT_THROTTLE: ThrottlePolicy = Object.freeze({ failures: 5, windowMs: 15 * 60_000, lockMs: 60_000, maxLockMs: 60 * 60_000 });

interface ClientRecord {
  failures: number;
  windowStart: number;
  lockedUntil: number;
  lockouts: number;
}

/** Failed sign-ins per client address, in memory. */
export class SignInThrottle {
  private readonly clients = new Map<string, ClientRecord>();

  constructor(private readonly policy: ThrottlePolicy = DEFAULT_THROTTLE) {}

  /** Milliseconds the client must still wait, or 0. */
  waitFor(client: string, nowMs: number): number {
    const record = this.clients.get(client);
    return record && record.lockedUntil > nowMs ? record.lockedUntil - nowMs : 0;
  }

  recordFailure(client: string, nowMs: number): void {
    this.forgetStale(nowMs);
    let record = this.clients.get(client);
    if (!record || nowMs - record.windowStart > this.policy.windowMs) {
      record = { failures: 0, windowStart: nowMs, lockedUntil: 0, lockouts: record?.lockouts ?? 0 };
      this.clients.set(client, record);
    }
    record.failures++;
    if (record.failures >= this.policy.failures) {
      record.lockedUntil = nowMs + Math.min(this.policy.maxLockMs, this.policy.lockMs * 2 ** record.lockouts);
      record.lockouts++;
      record.failures = 0;
      record.windowStart = nowMs;
    }
  }

  recordSuccess(client: string): void {
    this.clients.delete(client);
  }

  /** Keeps memory bounded when many addresses fail once and never return. */
  private forgetStale(nowMs: number): void {
    if (this.clients.size < 10_000) return;
    for (const [client, r] of this.clients) {
      if (r.lockedUntil <= nowMs && nowMs - r.windowStart > this.policy.windowMs) this.clients.delete(client);
    }
  }
}
