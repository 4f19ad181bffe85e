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
  giveBack(
    unused: readonly { readonly keyId: string; readonly month: string; readonly count: number }[],
  ): Promise<void>;
  /** Every key's count for the month. */
  chargedIn(month: string): Promise<Map<string, number>>;
}

/** The most a first lease of a key can be, and so the most an instance can serve on credit. */
export const MAX_LEASE = 1_000;
/** A busy key's lease covers this much of its traffic on the instance, so refills land before it runs out. */
const DEMAND_MS = 1_000;
/** After an answer that the quota is used up, or a failed lease, ask again no sooner than this. */
const ASK_AGAIN_MS = 1_000;
/** A lease left unused this long is given back, so that the instances that get the traffic can have it. */
export const IDLE_LEASE_MS = 10_000;

/**
 * Half of the key's checks not yet handed out (as last seen), but no more than MAX_LEASE
 * or what the instance served of the key in the last DEMAND_MS, whichever is more; at least 1.
 */
export function leaseSize(limit: number, charged: number, servedPerDemandMs = 0): number {
  return Math.max(1, Math.min(Math.ceil((limit - charged) / 2), Math.max(MAX_LEASE, Math.ceil(servedPerDemandMs))));
}

interface Lease {
  readonly keyId: string;
  readonly month: QuotaMonthSpan;
  /** Leased and not yet used. */
  available: number;
  /** What the last ask wanted to hold: leases are refilled when half of it is used. */
  size: number;
  /** Successes since the last ask, and when that was: the key's demand here. */
  served: number;
  askedAtMs: number;
  /** Served on credit before the first answer; charged with the next lease. */
  owed: number;
  /** The database has answered a lease of this key this month. */
  answered: boolean;
  /** The month's count for the key at the last answer, every instance's leases included. */
  charged: number;
  refilling: Promise<void> | null;
  askAfterMs: number;
  lastUsedMs: number;
}

/**
 * A lease is refilled when half of it is used, or when it is down to its last check while
 * the count says checks are left: slices shrink to 1 as the quota runs out, and asking only
 * once the last one is gone would refuse a request while checks remain.
 */
function wantsRefill(lease: Lease, limit: number): boolean {
  return lease.available <= lease.size / 2 || lastHeld(lease, limit);
}

/**
 * Credit after the first answer: a refill is on its way, and two more slices beyond what is
 * owed would still leave half the quota (as the count stood at the last answer). The refill
 * pays for what is served meanwhile, so a key busier than a slice per round trip to the
 * database is not refused while it waits. Near the end of the quota there is no such credit:
 * should other instances have taken the room meanwhile, the credit is charged uncovered,
 * like a first slice's, and the count at the limit ends credit for the month.
 */
function creditWhileRefilling(lease: Lease, limit: number): boolean {
  return lease.refilling !== null && lease.charged + lease.owed + 2 * lease.size <= limit / 2;
}

function lastHeld(lease: Lease, limit: number): boolean {
  return lease.answered && lease.available <= 1 && lease.charged < limit;
}

/**
 * The quota of several instances sharing one count. Each instance leases a slice of a
 * key's quota (see leaseSize) and serves from it in memory, refilling in the background
 * when half of the slice is used; requests never wait for the database. Until its first
 * slice of a key arrives (and again after an idle key's slice went back), and while a refill
 * is on its way with room left for it, an instance serves at most one slice on credit, paid
 * from the slice that answers. Uncovered credit is the only way past the quota, and an
 * instance whose credit went uncovered is charged it, sees the count at the limit and gives
 * the key no credit again that month. Unused slices go back at shutdown and after
 * IDLE_LEASE_MS without traffic; a crash forfeits the crashed instance's slices for the month.
 */
export class LeasedMonthlyQuota implements MonthlyQuota {
  private readonly leases = new Map<string, Lease>();
  private readonly months = new QuotaMonth();
  /** Every key's count at the last look, for keys this instance holds no lease of yet. */
  private seen: { month: number; charged: ReadonlyMap<string, number> } = { month: -1, charged: new Map() };

  private constructor(
    private readonly store: QuotaLeaseStore,
    private readonly now: () => number,
    private readonly logError: (line: string) => void,
  ) {}

  /** Starts from every key's count this month, so a first request knows how much is left. */
  static async open(
    store: QuotaLeaseStore,
    now: () => number,
    logError: (line: string) => void,
  ): Promise<LeasedMonthlyQuota> {
    const quota = new LeasedMonthlyQuota(store, now, logError);
    await quota.look(now());
    return quota;
  }

  check(keyId: string, limit: number, nowMs: number, checks = 1): QuotaDecision | null {
    if (limit === 0) return null;
    const month = this.months.at(nowMs);
    let lease = this.leases.get(keyId);
    if (lease === undefined || lease.month.index !== month.index) {
      const charged = this.seen.month === month.index ? (this.seen.charged.get(keyId) ?? 0) : 0;
      const size = leaseSize(limit, charged);
      lease = {
        keyId,
        month,
        available: 0,
        size,
        served: 0,
        askedAtMs: nowMs,
        owed: 0,
        answered: false,
        charged,
        refilling: null,
        askAfterMs: 0,
        lastUsedMs: nowMs,
      };
      this.leases.set(keyId, lease);
    }
    if (lease.refilling === null && wantsRefill(lease, limit) && nowMs >= lease.askAfterMs) this.refill(lease, limit);
    const used = Math.max(0, lease.charged - lease.available) + lease.owed;
    const onCredit =
      lease.owed < lease.size && lease.charged < limit && (!lease.answered || creditWhileRefilling(lease, limit));
    // Several checks at once (a batch) fit when this instance holds them, or on credit when the count as last seen
    // leaves room for all of them.
    const fits =
      checks === 1
        ? lease.available > 0 || onCredit
        : lease.available >= checks || (onCredit && used + checks <= limit);
    if (fits) return { allowed: true, limit, used: Math.min(used, limit - checks), resetsAt: month.resetsAt };
    return refusal(limit, limit, month, nowMs);
  }

  countSuccess(keyId: string, nowMs: number, checks = 1): void {
    const lease = this.leases.get(keyId);
    // Keys without a quota have no lease.
    if (lease === undefined || lease.month.index !== this.months.at(nowMs).index) return;
    const held = Math.min(lease.available, checks);
    lease.available -= held;
    lease.owed += checks - held;
    lease.served += checks;
    lease.lastUsedMs = nowMs;
  }

  /** Periodic upkeep: gives back the slices of keys that had no traffic here for IDLE_LEASE_MS, and looks at every key's count again. */
  async tick(nowMs: number): Promise<void> {
    await this.giveBack(
      [...this.leases.values()].filter(
        (l) => l.refilling === null && l.available > 0 && nowMs - l.lastUsedMs >= IDLE_LEASE_MS,
      ),
      { startAfresh: true },
    );
    await this.look(nowMs);
  }

  private async look(nowMs: number): Promise<void> {
    const month = this.months.at(nowMs);
    const charged = await this.store.chargedIn(month.name);
    this.seen = { month: month.index, charged };
    for (const lease of this.leases.values()) {
      if (lease.refilling === null && lease.month.index === month.index)
        lease.charged = charged.get(lease.keyId) ?? lease.charged;
    }
  }

  /** At shutdown: waits for refills on their way, then gives back every unused check and charges what was served on credit. */
  async close(): Promise<void> {
    const refilling = () => [...this.leases.values()].filter((l) => l.refilling !== null);
    while (refilling().length > 0) await Promise.all(refilling().map((l) => l.refilling));
    const month = this.months.at(this.now()).index;
    await this.giveBack(
      [...this.leases.values()].filter((l) => l.month.index === month && (l.available > 0 || l.owed > 0)),
    );
  }

  private refill(lease: Lease, limit: number): void {
    const nowMs = this.now();
    // Until the first answer the size is also the credit, which demand must not raise.
    const demand = lease.answered ? (lease.served * DEMAND_MS) / Math.max(1, nowMs - lease.askedAtMs) : 0;
    lease.size = leaseSize(limit, lease.charged, demand);
    lease.served = 0;
    lease.askedAtMs = nowMs;
    // Near the end of the quota a slice is 1: ask for it while the last check held is still there to serve.
    const want = Math.max(lease.size - lease.available, lastHeld(lease, limit) ? 1 : 0);
    if (want <= 0) return;
    const owed = lease.owed;
    lease.refilling = this.store
      .lease({ keyId: lease.keyId, month: lease.month.name, want, owed, limit })
      .then(
        ({ granted, charged }) => {
          lease.owed -= owed;
          lease.answered = true;
          // What was served on credit while this answer was on its way is paid from the grant.
          const paid = Math.min(lease.owed, granted);
          lease.owed -= paid;
          lease.available += granted - paid;
          lease.charged = charged;
          lease.askAfterMs = granted < want ? this.now() + ASK_AGAIN_MS : 0;
          return granted === want;
        },
        (err: Error) => {
          lease.askAfterMs = this.now() + ASK_AGAIN_MS;
          this.logError(
            `quota: leasing checks of ${lease.keyId} failed, refusing it once what this instance holds is used, ` +
              `until the database answers: ${err.message}`,
          );
          return false;
        },
      )
      .then((granted) => {
        lease.refilling = null;
        // A grant that paid for credit can leave the lease low: the next one is asked for at once.
        if (granted && wantsRefill(lease, limit)) this.refill(lease, limit);
      });
  }

  /**
   * Gives every unused check of these leases back. With `startAfresh` (an idle key's slice),
   * the key's next request here is served as a first one: on credit of at most a first
   * slice while its new slice is on its way. Without it, a key used less often than
   * every IDLE_LEASE_MS found no check and no credit, and every such request was refused.
   */
  private async giveBack(leases: Lease[], { startAfresh = false } = {}): Promise<void> {
    if (leases.length === 0) return;
    const unused = leases.map((l) => ({ keyId: l.keyId, month: l.month.name, count: l.available - l.owed }));
    const taken = leases.map((l) => ({ available: l.available, owed: l.owed, answered: l.answered, size: l.size }));
    for (const l of leases) {
      l.available = l.owed = 0;
      if (startAfresh) {
        l.answered = false;
        l.size = Math.min(l.size, MAX_LEASE);
        l.askAfterMs = 0;
      }
    }
    try {
      await this.store.giveBack(unused);
    } catch (err) {
      leases.forEach((l, i) => {
        l.available += taken[i].available;
        l.owed += taken[i].owed;
        // Still held: no credit beyond it, as before (unless a slice was asked for meanwhile).
        if (startAfresh && l.refilling === null) {
          l.answered = taken[i].answered;
          l.size = taken[i].size;
        }
      });
      throw err;
    }
  }
}
