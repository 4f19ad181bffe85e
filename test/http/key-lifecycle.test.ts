import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { dailyOutcomes, outcomeTotals } from "../../src/keys/usage-outcomes.ts";
import { STORE_BACKENDS } from "../support/store-backends.ts";
import { createTestApp } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

// Real waits (a 2 s grace, a change reaching the instance) and two databases.
setDefaultTimeout(scaled(30_000));

type App = Awaited<ReturnType<typeof createTestApp>>;

/** `read` until it gives `expected`, at most `quietMs` (scaled to this machine); how long it took. */
async function within<T>(quietMs: number, read: () => Promise<T>, expected: T): Promise<number> {
  const started = performance.now();
  const ms = scaled(quietMs);
  for (;;) {
    if ((await read()) === expected) return performance.now() - started;
    if (performance.now() - started > ms) throw new Error(`not ${String(expected)} within ${ms} ms`);
    await Bun.sleep(20);
  }
}

describe.each(STORE_BACKENDS)("keys changed, rotated, expired and restricted, on $name", (backend) => {
  const apps: App[] = [];
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.serving.release();
  });

  /** The serving app on the wall clock (rotation and expiry are judged by it), and the CLI's own connection. */
  async function setUp(options: Parameters<typeof createTestApp>[0] = {}) {
    const t = await createTestApp({ ...options, stores: await backend.fresh() });
    apps.push(t);
    Object.defineProperty(t.clock, "now", { get: () => Date.now() });
    t.client.address = "127.0.0.1";
    const cli = await backend.another();
    const check = (secret: string, email = "someone@gmail.com") =>
      t.request(`/v1/check?email=${email}`, { key: secret });
    const status = (secret: string) => async () => (await check(secret)).status;
    return { t, cli, check, status };
  }

  test("an update made elsewhere reaches the running server within 3 s; the usage counted so far stays", async () => {
    const { t, cli, check, status } = await setUp();
    const { key, secret } = await cli.keys.create({ name: "checkout", ipQuotaPerMonth: 10 });
    await within(3_000, status(secret), 200);
    for (let i = 0; i < 2; i++) await check(secret);
    await t.usage.flush();
    await cli.keys.update("checkout", { permissions: ["report"], ipQuotaPerMonth: 500 });
    const took = await within(3_000, status(secret), 403);
    expect(took).toBeLessThan(scaled(3_000));
    const month = (await t.usageStore.usageOf([key.id], 0, Date.now())).get(key.id)!.month;
    expect(month.email).toBe(3);
  });

  test("rotation with a 2 s grace: both secrets work, then only the new one", async () => {
    const { cli, status } = await setUp();
    const { secret: old } = await cli.keys.create({ name: "rotating" });
    await within(3_000, status(old), 200);
    const { secret, after } = await cli.keys.rotate("rotating", scaled(2_000));
    await within(3_000, status(secret), 200);
    expect(await status(old)()).toBe(200);
    await Bun.sleep(Math.max(0, Date.parse(after.previousSecretEndsAt!) - Date.now()));
    expect(await status(old)()).toBe(401);
    expect(await status(secret)()).toBe(200);
  });

  test("a key past its expiry is answered 401 with the spec's body", async () => {
    const { cli, check, status } = await setUp();
    const { secret } = await cli.keys.create({
      name: "contractor",
      expiresAt: new Date(Date.now() + scaled(1_000)).toISOString(),
    });
    await within(3_000, status(secret), 200);
    await within(3_000, status(secret), 401);
    const res = await check(secret);
    expect(await res.json()).toEqual({
      error: "API key revoked",
      message: "This API key has been revoked. Please generate a new one.",
    });
  });

  test("--allow-from 10.0.0.0/8: from 127.0.0.1 403 naming the address, from 10.1.2.3 answered; after the permission, before the rate limit", async () => {
    const { t, cli, check, status } = await setUp({ ratePerMinute: 1, rateBurst: 1 });
    const { secret } = await cli.keys.create({ name: "internal", allowedNetworks: ["10.0.0.0/8"] });
    await within(3_000, status(secret), 403);
    for (let i = 0; i < 3; i++) {
      const res = await check(secret);
      expect(res.status).toBe(403);
      expect(res.headers.get("x-ratelimit-limit")).toBeNull();
      expect(await res.json()).toEqual({
        error: "forbidden",
        message: expect.stringMatching(/not allowed from 127\.0\.0\.1.*allowed networks/),
      });
    }
    const ip = await t.request("/v1/ip-reputation-check?ip=8.8.8.8", { key: secret });
    expect(ip.status).toBe(403);
    t.client.address = "10.1.2.3";
    expect((await check(secret)).status).toBe(200);
    expect((await check(secret)).status).toBe(429);
    // A key without the permission is refused for that first, wherever it comes from.
    const { secret: reporter } = await cli.keys.create({
      name: "reporter",
      permissions: ["report"],
      allowedNetworks: ["10.0.0.0/8"],
    });
    t.client.address = "127.0.0.1";
    await within(3_000, status(reporter), 403);
    expect(((await (await check(reporter)).json()) as { message: string }).message).toContain("permission");
  });

  test("last use: its time and client address after one request, written with the usage", async () => {
    const { t, cli, check, status } = await setUp();
    const { key, secret } = await cli.keys.create({ name: "seen" });
    t.client.address = "2001:db8::42";
    await within(3_000, status(secret), 200);
    const before = Date.now();
    await check(secret);
    await t.usage.flush();
    const found = (await cli.keys.find(key.id))!;
    expect(found.lastUsedIp).toBe("2001:db8::42");
    expect(Date.parse(found.lastUsedAt!)).toBeGreaterThanOrEqual(before);
  });

  test("usage by outcome after answered, rate-limited, invalid and forbidden requests", async () => {
    const { t, cli, check, status } = await setUp({ ratePerMinute: 1, rateBurst: 3 });
    const { key, secret } = await cli.keys.create({ name: "mixed", allowedNetworks: ["127.0.0.0/8"] });
    await within(3_000, status(secret), 200); // 1 answered
    await check(secret); // 2 answered
    await check(secret, "not-an-address"); // refused
    await check(secret); // rate-limited
    t.client.address = "192.0.2.1";
    await check(secret); // forbidden
    await t.usage.flush();
    const totals = outcomeTotals(dailyOutcomes(await t.usageStore.outcomesOf(key.id, 1, Date.now()), 1, Date.now()));
    expect(totals).toEqual({
      answered: 2,
      rate_limited: 1,
      over_quota: 0,
      refused: 1,
      forbidden: 1,
      reports_accepted: 0,
    });
  });

  test("reports a key sends count in its usage: the request answered, the reports accepted", async () => {
    const { t, cli } = await setUp();
    const { key, secret } = await cli.keys.create({ name: "waf", permissions: ["report"] });
    const post = () =>
      t.request("/v1/reports", {
        key: secret,
        method: "POST",
        body: JSON.stringify({
          reports: [
            { ip: "81.2.69.142", category: "bot" },
            { ip: "89.160.20.112", category: "attack" },
          ],
        }),
      });
    await within(3_000, async () => (await post()).status, 200);
    await t.usage.flush();
    const totals = outcomeTotals(dailyOutcomes(await t.usageStore.outcomesOf(key.id, 1, Date.now()), 1, Date.now()));
    expect(totals).toMatchObject({ answered: 1, reports_accepted: 2 });
  });
});
