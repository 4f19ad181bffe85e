import { type MonthlyQuota, QuotaMonth, type QuotaDecision, type QuotaMonthSpan, refusal } from "./monthly-quota.ts";

export interface LeaseRequest {
  readonly keyId: string;
  /** "2026-11". */
  readonly month: string;
  /** Checks wanted beyond `owed`; fewer are granted when the month's quota runs out. */
  readonly want: number;
  /** Checks already served beyond the leases, charged whatever the quota says. */
  readonly owed: number;
  readonly limit: number;
}

/** The shared count of a key's checks this month: used, or leased to an instance and not yet used. */
export interface QuotaLeaseStore {
  /** Atomically charges `owed` and grants up to `want` more without passing `limit`. */
  lease(request: LeaseRequest): Promise<{ readonly granted: number; readonly charged: number }>;
  /** Takes back leased checks not used (a negative count charges checks served beyond the leases). */
  giveBack(unused: readonly { readonly keyId: string; readonly month: string; readonly count: number }[]): Promise<void>;
}

/** A lease is this share of a key's monthly quota, between 1 and MAX_LEASE checks. */
const LEASE_SHARE = 1 / 20;
export const MAX_LEASE = 1_000;
/** After an answer that the quota is used up, or a failed lease, ask again no sooner than this. */
const ASK_AGAIN_MS = 1_000;
/** A lease left unused this long is given back, so that the instances that get the traffic can have it. */
export const IDLE_LEASE_MS = 30_000;

export function leaseSize(limit: number): number {
  return Math.max(1, Math.min(MAX_LEASE, Math.ceil(limit * LEASE_SHARE)));
}

interface Lease {
  readonly keyId: string;
  readonly month: QuotaMonthSpan;
  /** Leased and not yet used. */
  available: number;
  /** Served beyond the lease while a refill was on its way; charged with the next one. */
  owed: number;
  /** The month's count for the key at the last answer, every instance's leases included. */
  charged: number;
  refilling: Promise<void> | null;
  /** The last answer granted less than wanted: the month's quota is handed out. */
  exhausted: boolean;
  askAfterMs: number;
  lastUsedMs: number;
}

/**
 * The quota of several instances sharing one count. Each instance leases a slice of a
 * key's quota and serves from it in memory, refilling in the background when half of it
 * is used; requests never wait for the database. While a refill is on its way an
 * instance serves at most one more lease on credit, charged with the refill: that is
 * the most an instance can exceed the quota by. Unused slices go back at shutdown and
 * after IDLE_LEASE_MS without traffic; a crash forfeits the crashed instance's slices
 * for the month.
 */
export class LeasedMonthlyQuota implements MonthlyQuota {
  private readonly leases = new Map<string, Lease>();
  private readonly months = new QuotaMonth();

  constructor(
    private readonly store: QuotaLeaseStore,
    private readonly now: () => number,
    private readonly logError: (line: string) => void,
  ) {}

  check(keyId: string, limit: number, nowMs: number): QuotaDecision | null {
    if (limit === 0) return null;
    const month = this.months.at(nowMs);
    let lease = this.leases.get(keyId);
    if (lease === undefined || lease.month.index !== month.index) {
      lease = { keyId, month, available: 0, owed: 0, charged: 0, refilling: null, exhausted: false, askAfterMs: 0, lastUsedMs: nowMs };
      this.leases.set(keyId, lease);
    }
    const size = leaseSize(limit);
    if (lease.refilling === null && lease.available <= size / 2 && nowMs >= lease.askAfterMs) this.refill(lease, size - lease.available, limit);
    const used = Math.max(0, lease.charged - lease.available) + lease.owed;
    if (lease.available > 0 || (!lease.exhausted && lease.owed < size)) return { allowed: true, limit, used: Math.min(used, limit - 1), resetsAt: month.resetsAt };
    return refusal(limit, limit, month, nowMs);
  }

  countSuccess(keyId: string, nowMs: number): void {
    const lease = this.leases.get(keyId);
    // Keys without a quota have no lease.
    if (lease === undefined || lease.month.index !== this.months.at(nowMs).index) return;
    if (lease.available > 0) lease.available--;
    else lease.owed++;
    lease.lastUsedMs = nowMs;
  }

  /** Gives back the slices of keys that had no traffic here for IDLE_LEASE_MS. */
  returnIdle(nowMs: number): Promise<void> {
    return this.giveBack([...this.leases.values()].filter((l) => l.refilling === null && l.available > 0 && nowMs - l.lastUsedMs >= IDLE_LEASE_MS));
  }

  /** At shutdown: waits for refills on their way, then gives back every unused check and charges what was served on credit. */
  async close(): Promise<void> {
    await Promise.all([...this.leases.values()].map((l) => l.refilling));
    const month = this.months.at(this.now()).index;
    await this.giveBack([...this.leases.values()].filter((l) => l.month.index === month && (l.available > 0 || l.owed > 0)));
  }

  private refill(lease: Lease, want: number, limit: number): void {
    const owed = lease.owed;
    lease.refilling = this.store
      .lease({ keyId: lease.keyId, month: lease.month.name, want, owed, limit })
      .then(
        ({ granted, charged }) => {
          lease.owed -= owed;
          lease.available += granted;
          lease.charged = charged;
          lease.exhausted = granted < want;
          lease.askAfterMs = lease.exhausted ? this.now() + ASK_AGAIN_MS : 0;
        },
        (err: Error) => {
          lease.askAfterMs = this.now() + ASK_AGAIN_MS;
          this.logError(`quota: leasing checks of ${lease.keyId} failed, serving it at most one more lease until the database answers: ${err.message}`);
        },
      )
      .finally(() => {
        lease.refilling = null;
      });
  }

  private async giveBack(leases: Lease[]): Promise<void> {
    if (leases.length === 0) return;
    const unused = leases.map((l) => ({ keyId: l.keyId, month: l.month.name, count: l.available - l.owed }));
    const taken = leases.map((l) => [l.available, l.owed] as const);
    for (const l of leases) l.available = l.owed = 0;
    try {
      await this.store.giveBack(unused);
    } catch (err) {
      leases.forEach((l, i) => {
        l.available += taken[i][0];
        l.owed += taken[i][1];
      });
      throw err;
    }
  }
}
