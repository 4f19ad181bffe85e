import { describe, expect, test } from "bun:test";
import {
  IDLE_LEASE_MS,
  type LeaseRequest,
  LeasedMonthlyQuota,
  type QuotaLeaseStore,
  leaseSize,
} from "../../src/limits/leased-monthly-quota.ts";

const nov = Date.UTC(2026, 10, 23, 12);

/** The shared count in memory, with answers held until the test releases them, as a slow database would. */
class HeldLeases implements QuotaLeaseStore {
  readonly charged = new Map<string, number>();
  readonly requests: LeaseRequest[] = [];
  private held: (() => void)[] = [];
  failing = false;

  lease(request: LeaseRequest) {
    this.requests.push(request);
    return new Promise<{ granted: number; charged: number }>((resolve, reject) =>
      this.held.push(() => {
        if (this.failing) return reject(new Error("connection refused"));
        const key = `${request.keyId} ${request.month}`;
        const before = this.charged.get(key) ?? 0;
        const granted = Math.max(0, Math.min(request.want, request.limit - before - request.owed));
        this.charged.set(key, before + request.owed + granted);
        resolve({ granted, charged: before + request.owed + granted });
      }),
    );
  }

  async giveBack(unused: readonly { keyId: string; month: string; count: number }[]) {
    for (const u of unused)
      this.charged.set(
        `${u.keyId} ${u.month}`,
        Math.max(0, (this.charged.get(`${u.keyId} ${u.month}`) ?? 0) - u.count),
      );
  }

  async chargedIn(month: string) {
    return new Map(
      [...this.charged].filter(([key]) => key.endsWith(` ${month}`)).map(([key, n]) => [key.split(" ")[0], n]),
    );
  }

  /** Answers every lease asked so far. */
  async answer(): Promise<void> {
    const held = this.held;
    this.held = [];
    for (const answer of held) answer();
    await Bun.sleep(0);
  }
}

/** Serves one request of `key` if the quota allows it, as the IP route does; true when served. */
function serve(quota: LeasedMonthlyQuota, key: string, limit: number, nowMs = nov): boolean {
  const decision = quota.check(key, limit, nowMs);
  if (decision && !decision.allowed) return false;
  quota.countSuccess(key, nowMs);
  return true;
}

function served(quota: LeasedMonthlyQuota, key: string, limit: number, requests: number): number {
  let n = 0;
  for (let i = 0; i < requests; i++) if (serve(quota, key, limit)) n++;
  return n;
}

async function instance(store: QuotaLeaseStore, errors: string[] = [], now = () => nov): Promise<LeasedMonthlyQuota> {
  return LeasedMonthlyQuota.open(store, now, (line) => void errors.push(line));
}

describe("quota leased from a shared count", () => {
  test("a lease is half of what is not yet handed out, at least 1, and at most 1000 or a second of the key's traffic", () => {
    expect([
      leaseSize(100, 0),
      leaseSize(100, 99),
      leaseSize(100, 100),
      leaseSize(100_000, 0),
      leaseSize(1_000, 990),
    ]).toEqual([50, 1, 1, 1000, 5]);
    expect([leaseSize(100_000, 0, 30_000), leaseSize(100_000, 90_000, 30_000), leaseSize(100_000, 0, 200)]).toEqual([
      30_000, 5_000, 1000,
    ]);
  });

  test("before its first lease arrives an instance serves one lease on credit, then refuses until the answer", async () => {
    const store = new HeldLeases();
    const quota = await instance(store);
    expect(served(quota, "k", 100, 80)).toBe(50);
    expect(store.requests).toEqual([{ keyId: "k", month: "2026-11", want: 50, owed: 0, limit: 100 }]);
    await store.answer();
    expect(store.charged.get("k 2026-11")).toBe(50);
    // The credit was paid from the grant, and the next slice, half of the 50 left, is asked for at once.
    expect(store.requests.at(-1)).toEqual({ keyId: "k", month: "2026-11", want: 25, owed: 0, limit: 100 });
    await store.answer();
    expect(served(quota, "k", 100, 80)).toBe(25);
  });

  test("two instances with a burst each serve the quota exactly once between them", async () => {
    const store = new HeldLeases();
    const [a, b] = [await instance(store), await instance(store)];
    let total = served(a, "k", 100, 100) + served(b, "k", 100, 100);
    for (let round = 0; round < 10; round++) {
      await store.answer();
      total += served(a, "k", 100, 100) + served(b, "k", 100, 100);
    }
    expect(total).toBe(100);
    expect(store.charged.get("k 2026-11")).toBe(100);
  });

  test("an instance that sees the quota used up refuses without credit, and asks again a second later", async () => {
    const store = new HeldLeases();
    store.charged.set("k 2026-11", 100);
    const quota = await instance(store);
    expect(quota.check("k", 100, nov)).toMatchObject({
      allowed: false,
      limit: 100,
      used: 100,
      resetsAt: "2026-12-01T00:00:00Z",
    });
    await store.answer();
    expect(store.requests).toHaveLength(1);
    await store.giveBack([{ keyId: "k", month: "2026-11", count: 10 }]);
    expect(quota.check("k", 100, nov + 500)?.allowed).toBe(false);
    expect(store.requests).toHaveLength(1);
    quota.check("k", 100, nov + 1_000);
    expect(store.requests).toHaveLength(2);
    let total = 0;
    for (let round = 0; round < 10; round++) {
      await store.answer();
      total += served(quota, "k", 100, 20);
    }
    expect(total).toBe(10);
  });

  test("refills in the background once half of a lease is used, so steady traffic never waits", async () => {
    const store = new HeldLeases();
    const quota = await instance(store);
    serve(quota, "k", 10_000);
    await store.answer();
    const first = store.requests.length;
    let refused = 0;
    for (let i = 0; i < 3_000; i++) {
      if (!serve(quota, "k", 10_000)) refused++;
      if (i % 100 === 0) await store.answer();
    }
    expect(refused).toBe(0);
    expect(store.requests.length - first).toBeGreaterThan(1);
  });

  test("a busy key's lease grows to a second of its traffic, so a refill lands before it runs out", async () => {
    const store = new HeldLeases();
    const clock = { now: nov };
    const quota = await instance(store, [], () => clock.now);
    const busy = () => {
      clock.now += 0.2;
      return serve(quota, "k", 10_000_000, clock.now);
    };
    busy();
    await store.answer();
    let refused = 0;
    for (let i = 0; i < 20_000; i++) {
      if (!busy()) refused++;
      if (i % 500 === 0) await store.answer();
    }
    expect(refused).toBe(0);
    // Asked when half is used: half of a second at 5,000 a second, well past the 1,000 of a first lease.
    expect(store.requests.at(-1)!.want).toBeGreaterThan(2_000);
  });

  test("a key busier than a lease per round trip is not refused while the refill is on its way", async () => {
    const store = new HeldLeases();
    const quota = await instance(store);
    // 600 requests per round trip to the database: the first lease (1,000) pays the 600 served
    // on credit and leaves 400 for the next round trip, which brings 600 more.
    expect(served(quota, "k", 10_000_000, 600)).toBe(600);
    await store.answer();
    expect(served(quota, "k", 10_000_000, 600)).toBe(600);
    await store.answer();
    expect(served(quota, "k", 10_000_000, 600)).toBe(600);
    await store.answer();
    await quota.close();
    expect(store.charged.get("k 2026-11")).toBe(1_800);
  });

  test("a busy key on one instance is served its quota exactly, credit while refilling included", async () => {
    const store = new HeldLeases();
    const quota = await instance(store);
    let total = 0;
    for (let round = 0; round < 1_000; round++) {
      total += served(quota, "k", 30_000, 700);
      await store.answer();
    }
    expect(total).toBe(30_000);
    expect(store.charged.get("k 2026-11")).toBe(30_000);
  });

  test("near the end of the quota, requests one at a time are never refused while checks are left", async () => {
    const store = new HeldLeases();
    store.charged.set("k 2026-11", 30);
    const quota = await instance(store);
    const outcomes: boolean[] = [];
    for (let i = 0; i < 25; i++) {
      outcomes.push(serve(quota, "k", 50));
      await store.answer(); // the database answers between one request and the next
    }
    // The 20 checks left, then refusals: no "quota exceeded" while a slice of the last checks is on its way.
    expect(outcomes).toEqual([...Array(20).fill(true), ...Array(5).fill(false)]);
    expect(store.charged.get("k 2026-11")).toBe(50);
  });

  test("the headers' remaining count never goes below zero on an allowed answer", async () => {
    const store = new HeldLeases();
    const quota = await instance(store);
    for (let i = 0; i < 60; i++) {
      const decision = quota.check("k", 100, nov);
      if (decision?.allowed) {
        expect(decision.limit - decision.used - 1).toBeGreaterThanOrEqual(0);
        quota.countSuccess("k", nov);
      }
    }
  });

  test("a limit of 0 is unlimited and leases nothing", async () => {
    const store = new HeldLeases();
    const quota = await instance(store);
    expect(quota.check("k", 0, nov)).toBeNull();
    quota.countSuccess("k", nov);
    expect(store.requests).toEqual([]);
  });

  test("at shutdown unused checks go back and credit not yet paid is charged", async () => {
    const store = new HeldLeases();
    const quota = await instance(store);
    expect(served(quota, "k", 100, 10)).toBe(10);
    await store.answer();
    expect(store.charged.get("k 2026-11")).toBe(50);
    const closing = quota.close();
    await store.answer();
    await closing;
    expect(store.charged.get("k 2026-11")).toBe(10);
  });

  test("a key idle for a while gives its lease back for other instances", async () => {
    const store = new HeldLeases();
    const quota = await instance(store);
    serve(quota, "k", 100);
    await store.answer();
    await quota.tick(nov + IDLE_LEASE_MS - 1);
    expect(store.charged.get("k 2026-11")).toBe(50);
    await quota.tick(nov + IDLE_LEASE_MS);
    expect(store.charged.get("k 2026-11")).toBe(1);
  });

  test("a key used once every 10 s or more is served each time, not refused once its slice went back", async () => {
    const store = new HeldLeases();
    const quota = await instance(store);
    const outcomes: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      const at = nov + i * (IDLE_LEASE_MS + 5_000);
      outcomes.push(serve(quota, "k", 100_000, at));
      await store.answer();
      await quota.tick(at + IDLE_LEASE_MS);
    }
    expect(outcomes).toEqual([true, true, true, true]);
    // Every slice went back but the checks served.
    expect(store.charged.get("k 2026-11")).toBe(4);
  });

  test("while the database does not answer, an instance serves what it holds and then refuses", async () => {
    const store = new HeldLeases();
    const errors: string[] = [];
    const quota = await instance(store, errors);
    store.failing = true;
    expect(served(quota, "k", 100, 80)).toBe(50);
    await store.answer();
    expect(errors[0]).toMatch(/quota: leasing checks of k failed/);
    expect(served(quota, "k", 100, 10)).toBe(0);
  });

  test("a new month starts a new count", async () => {
    const store = new HeldLeases();
    store.charged.set("k 2026-11", 100);
    const quota = await instance(store);
    expect(quota.check("k", 100, nov)?.allowed).toBe(false);
    expect(quota.check("k", 100, Date.UTC(2026, 11, 1))).toMatchObject({
      allowed: true,
      used: 0,
      resetsAt: "2027-01-01T00:00:00Z",
    });
    expect(store.requests.at(-1)).toMatchObject({ month: "2026-12", want: 50 });
  });
});
