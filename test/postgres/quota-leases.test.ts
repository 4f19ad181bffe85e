import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { SQL } from "bun";
import { LeasedMonthlyQuota } from "../../src/limits/leased-monthly-quota.ts";
import { SERVING_BOUNDS, boundedTransaction } from "../../src/stores/postgres/bounded-transaction.ts";
import { openPostgres } from "../../src/stores/postgres/database.ts";
import { PostgresKeyStore } from "../../src/stores/postgres/key-store.ts";
import { PostgresQuotaLeases } from "../../src/stores/postgres/quota-leases.ts";
import { POSTGRES_SETUP_TIMEOUT_MS, freshDatabaseUrl } from "../support/postgres.ts";
import { scaled } from "../support/slowness.ts";

// The bounded-transaction tests wait for PostgreSQL's timeouts to fire.
setDefaultTimeout(scaled(15_000));

let pools: SQL[] = [];
let one: PostgresQuotaLeases;
let two: PostgresQuotaLeases;
beforeAll(async () => {
  const url = await freshDatabaseUrl();
  pools = [await openPostgres(url), await openPostgres(url)];
  [one, two] = pools.map((sql) => new PostgresQuotaLeases(sql));
}, POSTGRES_SETUP_TIMEOUT_MS);
afterAll(() => Promise.all(pools.map((sql) => sql.close({ timeout: 5 }))));

test("leases asked for at once by two instances never hand out more than the limit", async () => {
  const { key } = await new PostgresKeyStore(pools[0]).create({ name: "contended" });
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      (i % 2 ? one : two).lease({ keyId: key.id, month: "2026-11", want: 7, owed: 0, limit: 100 }),
    ),
  );
  expect(answers.reduce((n, a) => n + a.granted, 0)).toBe(100);
  expect(answers.filter((a) => a.granted > 0 && a.granted < 7)).toHaveLength(1);
  expect(Math.max(...answers.map((a) => a.charged))).toBe(100);
  expect((await one.chargedIn("2026-11")).get(key.id)).toBe(100);
});

test("credit served is charged even past the limit; unused checks go back; months are counted apart", async () => {
  const { key } = await new PostgresKeyStore(pools[0]).create({ name: "credit" });
  expect(await one.lease({ keyId: key.id, month: "2026-11", want: 50, owed: 0, limit: 100 })).toEqual({
    granted: 50,
    charged: 50,
  });
  expect(await two.lease({ keyId: key.id, month: "2026-11", want: 50, owed: 60, limit: 100 })).toEqual({
    granted: 0,
    charged: 110,
  });
  await one.giveBack([{ keyId: key.id, month: "2026-11", count: 30 }]);
  await two.giveBack([{ keyId: key.id, month: "2026-12", count: -4 }]);
  expect((await two.chargedIn("2026-11")).get(key.id)).toBe(80);
  expect((await two.chargedIn("2026-12")).get(key.id)).toBe(4);
  expect(await one.lease({ keyId: key.id, month: "2026-11", want: 50, owed: 0, limit: 100 })).toEqual({
    granted: 20,
    charged: 100,
  });
});

describe("lease and key transactions are bounded", () => {
  // Each test waits out a PostgreSQL timeout on a key of its own: they wait together.
  /** Another session holding the key's quota row locked, as a stuck instance would: released by the returned function. */
  async function holdRowLock(keyId: string, month: string): Promise<() => Promise<void>> {
    const reserved = await pools[1].reserve();
    await reserved`BEGIN`;
    await reserved`INSERT INTO quota_leases (key_id, month, charged) VALUES (${keyId}, ${month}, 0) ON CONFLICT (key_id, month) DO UPDATE SET charged = quota_leases.charged`;
    return async () => {
      await reserved`ROLLBACK`;
      reserved.release();
    };
  }

  test.concurrent("a lease waiting for a key's row lock fails after the lock bound instead of waiting for the holder", async () => {
    const { key } = await new PostgresKeyStore(pools[0]).create({ name: "locked" });
    const release = await holdRowLock(key.id, "2026-11");
    try {
      const started = performance.now();
      const failure = await one
        .lease({ keyId: key.id, month: "2026-11", want: 10, owed: 0, limit: 100 })
        .catch((err: Error) => err);
      const waited = performance.now() - started;
      expect(failure).toBeInstanceOf(Error);
      expect((failure as Error).message).toContain("lock timeout");
      expect(waited).toBeGreaterThanOrEqual(SERVING_BOUNDS.lockMs - 50);
      expect(waited).toBeLessThan(SERVING_BOUNDS.lockMs + scaled(3_000));
    } finally {
      await release();
    }
    // The failed transaction changed nothing, and the next lease is served.
    expect(await one.lease({ keyId: key.id, month: "2026-11", want: 10, owed: 0, limit: 100 })).toEqual({
      granted: 10,
      charged: 10,
    });
  });

  test.concurrent("what a caller sees meanwhile: the instance serves from what it holds, refuses with quota_exceeded, and serves again once the lock is gone", async () => {
    const { key } = await new PostgresKeyStore(pools[0]).create({ name: "parked" });
    const errors: string[] = [];
    const quota = await LeasedMonthlyQuota.open(one, Date.now, (line) => errors.push(line));
    const release = await holdRowLock(key.id, new Date().toISOString().slice(0, 7));
    const limit = 10;
    let served = 0;
    const ask = () => {
      const decision = quota.check(key.id, limit, Date.now());
      if (decision?.allowed) {
        quota.countSuccess(key.id, Date.now());
        served++;
      }
      return decision;
    };
    try {
      // The first slice (half the quota) is served on credit while the lease waits for the lock.
      for (let i = 0; i < 5; i++) expect(ask()?.allowed).toBe(true);
      expect(ask()?.allowed).toBe(false);
      await until(() => errors.length > 0, SERVING_BOUNDS.lockMs + scaled(3_000));
      expect(errors[0]).toContain(`quota: leasing checks of ${key.id} failed`);
      expect(errors[0]).toContain("lock timeout");
      expect(ask()?.allowed).toBe(false);
    } finally {
      await release();
    }
    // Asked again a second after the failure: the credit is charged and the rest granted.
    await until(() => ask()?.allowed === true, scaled(5_000));
    expect(served).toBe(6);
    await quota.close();
    expect((await one.chargedIn(new Date().toISOString().slice(0, 7))).get(key.id)).toBe(6);
  });

  test.concurrent("past the statement bound a statement is cancelled, and a transaction left idle past its bound is ended by the server", async () => {
    const bounds = { statementMs: 300, lockMs: 200, idleMs: 300 };
    const slow = await boundedTransaction(pools[0], (tx) => tx`SELECT pg_sleep(3)`, bounds).catch((err: Error) => err);
    expect((slow as Error).message).toContain("statement timeout");
    const idle = await boundedTransaction(
      pools[0],
      async (tx) => {
        await Bun.sleep(1_000);
        return tx`SELECT 1`;
      },
      bounds,
    ).catch((err: Error) => err);
    expect(idle).toBeInstanceOf(Error);
    // The bounds were local to the transactions: the pool's connections are as they were.
    const [{ statement_timeout }] = await pools[0]`SHOW statement_timeout`;
    expect(statement_timeout).toBe("30s");
  });

  test.concurrent("a key revocation waiting for the key's row lock fails after the lock bound", async () => {
    const keys = new PostgresKeyStore(pools[0]);
    const { key } = await keys.create({ name: "revoking" });
    const reserved = await pools[1].reserve();
    await reserved`BEGIN`;
    await reserved`SELECT 1 FROM api_keys WHERE id = ${key.id} FOR UPDATE`;
    try {
      const failure = await keys.revoke(key.id).catch((err: Error) => err);
      expect((failure as Error).message).toContain("lock timeout");
    } finally {
      await reserved`ROLLBACK`;
      reserved.release();
    }
    expect((await keys.revoke(key.id)).revokedAt).not.toBeNull();
  });
});

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`not within ${ms} ms`);
    await Bun.sleep(20);
  }
}
