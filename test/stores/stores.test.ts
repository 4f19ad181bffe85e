import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { AdminPassword, setAdminPassword } from "../../src/dashboard/admin-password.ts";
import { SESSION_LIFETIME_MS } from "../../src/dashboard/sessions.ts";
import { KeyAuthenticator } from "../../src/keys/key-authenticator.ts";
import type { KeyRecord } from "../../src/keys/key-record.ts";
import { KeyStoreError } from "../../src/keys/key-store.ts";
import { UsageRecorder } from "../../src/keys/usage-recorder.ts";
import { OverrideWatch } from "../../src/email/override-watch.ts";
import type { OverrideLine } from "../../src/email/overrides.ts";
import { POSTGRES_SETUP_TIMEOUT_MS, startTestPostgres } from "../support/postgres.ts";
import { STORE_BACKENDS } from "../support/store-backends.ts";
import { scaled } from "../support/slowness.ts";

// Password hashing and two database connections per test: seconds on a loaded two-core machine.
setDefaultTimeout(scaled(20_000));

beforeAll(startTestPostgres, POSTGRES_SETUP_TIMEOUT_MS);

// The same rules, whichever database keeps the state.
const day1 = Date.UTC(2026, 10, 23, 10);

/** Resolves once `read()` returns `expected`, or fails after `quietMs` (scaled to this machine). */
async function eventually<T>(read: () => T, expected: T, quietMs = 1_000): Promise<number> {
  const started = performance.now();
  const ms = scaled(quietMs);
  while (read() !== expected) {
    if (performance.now() - started > ms)
      throw new Error(`still ${String(read())} after ${ms} ms, expected ${String(expected)}`);
    await Bun.sleep(5);
  }
  return performance.now() - started;
}

describe.each(STORE_BACKENDS)("$name", (backend) => {
  describe("key store", () => {
    test("creates, lists and revokes by id or name", async () => {
      const { keys } = await backend.fresh();
      const { key, secret } = await keys.create({ name: "  web sign-up  " });
      expect(key.name).toBe("web sign-up");
      expect(key.prefix).toBe(secret.slice(0, 9));
      expect((await keys.list()).map((k) => k.id)).toEqual([key.id]);
      expect(await keys.find(key.id)).toEqual(key);
      const revoked = await keys.revoke("web sign-up");
      expect(revoked.revokedAt).not.toBeNull();
      expect((await keys.find(key.id))?.revokedAt).toBe(revoked.revokedAt);
      await expect(keys.revoke(key.id)).rejects.toThrow(/already revoked/);
    });

    test("refuses names that are empty, too long or carry control or format characters", async () => {
      const { keys } = await backend.fresh();
      const invisible = ["\u202e", "\u2066", "\u200b", "\u200d", "\ufeff", "\u2028", "\u0085"];
      for (const name of ["", "   ", "x".repeat(101), "a\nb", "tab\there", ...invisible.map((c) => `pay${c}ments`)]) {
        await expect(keys.create({ name })).rejects.toThrow(KeyStoreError);
      }
      expect(await keys.list()).toHaveLength(0);
      expect((await keys.create({ name: "Zahlungen – Köln 🚀 支付" })).key.name).toBe("Zahlungen – Köln 🚀 支付");
    });

    test("a name is unique among active keys: create and rename refuse one in use, a revoked key's name is free again", async () => {
      const { keys } = await backend.fresh();
      const other = await backend.another();
      const { key: prod } = await keys.create({ name: "prod" });
      await expect(keys.create({ name: " prod " })).rejects.toThrow(/an active key is already named "prod" \(key_/);
      const { key: staging } = await keys.create({ name: "staging" });
      await expect(keys.update(staging.id, { name: "prod" })).rejects.toThrow(/already named "prod"/);
      expect((await keys.update("staging", { name: "staging" })).after.name).toBe("staging");
      await keys.revoke("prod");
      const { key: again } = await keys.create({ name: "prod" });
      expect((await keys.revoke("prod")).id).toBe(again.id);
      expect((await keys.find(prod.id))?.revokedAt).not.toBeNull();
      await expect(keys.revoke("nope")).rejects.toThrow(/no key has the id or name/);
      // Two connections creating one name at once: one key.
      const both = await Promise.allSettled([keys.create({ name: "race" }), other.keys.create({ name: "race" })]);
      expect(both.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
      expect((await keys.list()).filter((k) => k.name === "race")).toHaveLength(1);
    });

    test("update changes the settings and keeps the id, secret and usage; a revoked key cannot change", async () => {
      const { keys, usage } = await backend.fresh();
      const { key, secret } = await keys.create({ name: "checkout", ratePerMinute: 10 });
      const recorder = new UsageRecorder(usage);
      recorder.record(key.id, "ip", "ok", day1);
      await recorder.flush();
      const { before, after } = await keys.update("checkout", {
        name: "checkout-eu",
        ratePerMinute: null,
        ipQuotaPerMonth: 500,
        permissions: ["check", "report"],
        expiresAt: "2027-01-01T00:00:00.000Z",
        allowedNetworks: ["10.0.0.0/8", "2001:db8::/32"],
      });
      const used = { ...key, lastUsedAt: new Date(day1).toISOString() };
      expect(before).toEqual(used);
      expect(after).toEqual({
        ...used,
        name: "checkout-eu",
        ratePerMinute: null,
        ipQuotaPerMonth: 500,
        permissions: ["check", "report"],
        expiresAt: "2027-01-01T00:00:00.000Z",
        allowedNetworks: ["10.0.0.0/8", "2001:db8::/32"],
      });
      expect(await keys.find(key.id)).toEqual(after);
      expect((await usage.usageOf([key.id], 0, day1)).get(key.id)!.ipQuotaUsed).toBe(1);
      expect((await keys.update(key.id, { expiresAt: null, allowedNetworks: [] })).after).toMatchObject({
        expiresAt: null,
        allowedNetworks: [],
        prefix: secret.slice(0, 9),
      });
      await expect(keys.update(key.id, { allowedNetworks: ["10.0.0.0/33"] })).rejects.toThrow(/not an address or CIDR/);
      await expect(keys.update(key.id, { ratePerMinute: -1 })).rejects.toThrow(KeyStoreError);
      await keys.revoke(key.id);
      await expect(keys.update(key.id, { ratePerMinute: 5 })).rejects.toThrow(/revoked key cannot be changed/);
      await expect(keys.rotate(key.id, 0)).rejects.toThrow(/revoked key cannot be changed/);
    });

    test("rotation: a new secret for the same key; the old one works until the grace ends, then is unknown", async () => {
      const { keys } = await backend.fresh();
      const { key, secret: old } = await keys.create({ name: "rotating" });
      const t0 = new Date(day1);
      const { before, after, secret } = await keys.rotate("rotating", 60_000, t0);
      expect(before.previousSecretEndsAt).toBeNull();
      expect(after).toMatchObject({
        id: key.id,
        prefix: secret.slice(0, 9),
        previousSecretEndsAt: new Date(day1 + 60_000).toISOString(),
      });
      expect(secret).not.toBe(old);
      let now = day1 + 59_999;
      const serving = await (await backend.another()).serving({
        now: () => now,
        logError: (line) => expect(line).toBeUndefined(),
      });
      const auth = new KeyAuthenticator(serving.keys, () => now);
      await eventually(() => auth.authenticate(secret).outcome, "active", 3_000);
      expect(auth.authenticate(old)).toMatchObject({ outcome: "active", key: { id: key.id } });
      now = day1 + 60_000;
      expect(auth.authenticate(old).outcome).toBe("unknown");
      expect(auth.authenticate(secret).outcome).toBe("active");
      // No grace: the secret it replaces stops at once.
      const third = await keys.rotate(key.id, 0, new Date(now));
      expect(third.after.previousSecretEndsAt).toBeNull();
      await eventually(() => auth.authenticate(third.secret).outcome, "active", 3_000);
      expect(auth.authenticate(secret).outcome).toBe("unknown");
      await serving.release();
    });

    test("a key past its expiry authenticates as expired; the serving keys take a change of settings within 3 s", async () => {
      const { keys } = await backend.fresh();
      const { key, secret } = await keys.create({
        name: "contractor",
        expiresAt: new Date(day1 + 1_000).toISOString(),
      });
      let now = day1;
      const serving = await (await backend.another()).serving({
        now: () => now,
        logError: (line) => expect(line).toBeUndefined(),
      });
      const auth = new KeyAuthenticator(serving.keys, () => now);
      await eventually(() => auth.authenticate(secret).outcome, "active", 3_000);
      now = day1 + 1_000;
      expect(auth.authenticate(secret)).toMatchObject({ outcome: "expired", key: { id: key.id } });
      await keys.update(key.id, { expiresAt: null, ratePerMinute: 7, allowedNetworks: ["192.0.2.0/24"] });
      await eventually(() => auth.authenticate(secret).outcome, "active", 3_000);
      const found = auth.authenticate(secret) as { key: KeyRecord };
      expect([found.key.ratePerMinute, found.key.allowedNetworks]).toEqual([7, ["192.0.2.0/24"]]);
      await serving.release();
    });

    test("of two revocations at once through two connections, one succeeds and one says it was already done", async () => {
      const { keys } = await backend.fresh();
      const other = await backend.another();
      const { key } = await keys.create({ name: "twice" });
      const results = await Promise.allSettled([keys.revoke(key.id), other.keys.revoke(key.id)]);
      expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
      expect(String((results.find((r) => r.status === "rejected") as PromiseRejectedResult).reason)).toMatch(
        /already revoked/,
      );
    });
  });

  test("the request path's keys follow creations and revocations made through another connection within a second", async () => {
    const stores = await backend.fresh();
    const serving = await stores.serving({ now: Date.now, logError: (line) => expect(line).toBeUndefined() });
    const auth = new KeyAuthenticator(serving.keys);
    const cli = await backend.another();
    const { key, secret } = await cli.keys.create({ name: "elsewhere" });
    await eventually(() => auth.authenticate(secret).outcome, "active");
    await cli.keys.revoke(key.id);
    await eventually(() => auth.authenticate(secret).outcome, "revoked");
    await serving.release();
  });

  describe("usage store", () => {
    test("counts by key, day, endpoint and outcome, written on flush", async () => {
      const { keys, usage: store } = await backend.fresh();
      const recorder = new UsageRecorder(store);
      const { key } = await keys.create({ name: "a" });
      recorder.record(key.id, "ip", "ok", day1);
      recorder.record(key.id, "ip", "ok", day1 + 1);
      recorder.record(key.id, "ip", "bad_request", day1 + 2);
      recorder.record(key.id, "email", "ok", day1 + 3);
      expect((await store.usageOf([key.id], 0, day1)).get(key.id)).toEqual({
        today: {},
        month: {},
        ipQuotaUsed: 0,
        daily: [],
      });
      await recorder.flush();
      expect((await store.usageOf([key.id], 0, day1)).get(key.id)).toEqual({
        today: { ip: 3, email: 1 },
        month: { ip: 3, email: 1 },
        ipQuotaUsed: 2,
        daily: [],
      });
      expect((await keys.list())[0].lastUsedAt).toBe(new Date(day1 + 3).toISOString());
    });

    test("last use: time and client address, flushed with the counts; by outcome per day for one key", async () => {
      const { keys, usage: store } = await backend.fresh();
      const recorder = new UsageRecorder(store);
      const { key } = await keys.create({ name: "a" });
      recorder.record(key.id, "email", "bad_request", day1 - 86_400_000);
      recorder.usedFrom(key.id, "2001:db8::7", day1);
      recorder.record(key.id, "ip", "ok", day1);
      recorder.record(key.id, "ip", "rate_limited", day1 + 1);
      recorder.record(key.id, "report", "reports_accepted", day1 + 2, 40);
      recorder.record(key.id, "report", "ok", day1 + 2);
      expect((await keys.find(key.id))?.lastUsedIp).toBeNull();
      await recorder.flush();
      expect(await keys.find(key.id)).toMatchObject({
        lastUsedAt: new Date(day1 + 2).toISOString(),
        lastUsedIp: "2001:db8::7",
      });
      expect(await store.outcomesOf(key.id, 2, day1)).toEqual([
        { keyId: key.id, day: "2026-11-22", endpoint: "email", outcome: "bad_request", count: 1 },
        { keyId: key.id, day: "2026-11-23", endpoint: "ip", outcome: "ok", count: 1 },
        { keyId: key.id, day: "2026-11-23", endpoint: "ip", outcome: "rate_limited", count: 1 },
        { keyId: key.id, day: "2026-11-23", endpoint: "report", outcome: "ok", count: 1 },
        { keyId: key.id, day: "2026-11-23", endpoint: "report", outcome: "reports_accepted", count: 40 },
      ]);
      expect(await store.outcomesOf(key.id, 1, day1)).toHaveLength(4);
      // Reports stored are not requests: the totals count the one request.
      expect((await store.usageOf([key.id], 0, day1)).get(key.id)!.today).toEqual({ ip: 2, report: 1 });
    });

    test("adds to earlier flushes and splits at UTC midnight", async () => {
      const { keys, usage: store } = await backend.fresh();
      const recorder = new UsageRecorder(store);
      const { key } = await keys.create({ name: "a" });
      recorder.record(key.id, "ip", "ok", day1);
      await recorder.flush();
      recorder.record(key.id, "ip", "ok", day1 + 1);
      recorder.record(key.id, "ip", "ok", Date.UTC(2026, 10, 24, 0, 0, 1));
      await recorder.flush();
      const other = (await keys.create({ name: "b" })).key;
      const usage = await store.usageOf([key.id, other.id], 30, Date.UTC(2026, 10, 24, 1));
      expect(usage.get(key.id)!.daily).toEqual([
        { day: "2026-11-23", endpoint: "ip", count: 2 },
        { day: "2026-11-24", endpoint: "ip", count: 1 },
      ]);
      expect(usage.get(key.id)!.today).toEqual({ ip: 1 });
      expect(usage.get(other.id)).toEqual({ today: {}, month: {}, ipQuotaUsed: 0, daily: [] });
    });

    test("the chart reaches into last month while the totals stay in this one", async () => {
      const { keys, usage: store } = await backend.fresh();
      const recorder = new UsageRecorder(store);
      const { key } = await keys.create({ name: "a" });
      recorder.record(key.id, "email", "ok", Date.UTC(2026, 9, 20));
      recorder.record(key.id, "email", "ok", Date.UTC(2026, 10, 2));
      await recorder.flush();
      const usage = (await store.usageOf([key.id], 30, Date.UTC(2026, 10, 3))).get(key.id)!;
      expect(usage.month).toEqual({ email: 1 });
      expect(usage.daily.map((d) => d.day)).toEqual(["2026-10-20", "2026-11-02"]);
    });

    test("two instances flushing the same keys at once add up, and the later use wins", async () => {
      const { keys, usage } = await backend.fresh();
      const other = await backend.another();
      const ids = await Promise.all(["a", "b", "c"].map(async (name) => (await keys.create({ name })).key.id));
      const first = new UsageRecorder(usage);
      const second = new UsageRecorder(other.usage);
      for (let round = 0; round < 5; round++) {
        for (const id of ids) {
          first.record(id, "ip", "ok", day1 + round);
          second.record(id, "ip", "ok", day1 + 100 + round);
          second.record([...ids].reverse()[0], "email", "ok", day1 + 100 + round);
        }
        await Promise.all([first.flush(), second.flush()]);
      }
      const totals = await usage.usageOf(ids, 0, day1);
      expect(ids.map((id) => totals.get(id)!.today.ip)).toEqual([10, 10, 10]);
      expect(totals.get(ids[2])!.today.email).toBe(15);
      expect((await keys.list()).map((k) => k.lastUsedAt)).toEqual(ids.map(() => new Date(day1 + 104).toISOString()));
    });
  });

  describe("dashboard state", () => {
    test("sessions are found by their token until they expire or are destroyed", async () => {
      const { sessions } = await backend.fresh();
      const { token, session } = await sessions.create(day1);
      expect(await sessions.find(token, day1 + 1)).toEqual(session);
      expect(await sessions.find(token, day1 + SESSION_LIFETIME_MS)).toBeNull();
      expect(await sessions.find("x".repeat(101), day1)).toBeNull();
      expect(await sessions.find(undefined, day1)).toBeNull();
      await sessions.destroy(token);
      expect(await sessions.find(token, day1 + 1)).toBeNull();
    });

    test("a new admin password is checked by every instance and signs everybody out", async () => {
      const stores = await backend.fresh();
      const other = await backend.another();
      const password = await AdminPassword.open(other.adminPassword, null);
      expect(await password.isSet()).toBe(false);
      const { token } = await other.sessions.create(day1);
      await setAdminPassword(stores.adminPassword, "correct horse battery");
      expect(await password.isSet()).toBe(true);
      expect(await password.verify("correct horse battery")).toBe(true);
      expect(await password.verify("wrong horse battery")).toBe(false);
      expect(await other.sessions.find(token, day1 + 1)).toBeNull();
    });

    test("five failed sign-ins lock a client out on every instance until unlocked", async () => {
      const { signInThrottle } = await backend.fresh();
      const other = await backend.another();
      for (let i = 0; i < 5; i++)
        expect(await signInThrottle.begin("2001:db8::1", day1 + i)).toEqual({ wait: 0, lockedIfWrong: i === 4 });
      expect(await other.signInThrottle.begin("2001:db8::ffff", day1 + 10)).toEqual({
        wait: 60_000 + 4 - 10,
        lockedIfWrong: false,
      });
      expect((await signInThrottle.begin("198.51.100.1", day1 + 10)).wait).toBe(0);
      expect(await other.signInThrottle.unlock(null, day1 + 20)).toEqual(["2001:db8::/64"]);
      expect((await signInThrottle.begin("2001:db8::1", day1 + 30)).wait).toBe(0);
    });
  });

  describe("email override store", () => {
    const NOW = new Date(Date.UTC(2026, 10, 25, 12));
    const line = (domain: string, action: "allow" | "deny", until: string | null = null): OverrideLine => ({
      domain,
      action,
      reason: `why ${domain}`,
      author: "ops",
      created: NOW.toISOString(),
      until,
    });

    test("adds, replaces, lists and removes lines", async () => {
      const { emailOverrides } = await backend.fresh();
      await emailOverrides.put(line("b.example-x.com", "deny", "2027-01-01T00:00:00.000Z"));
      await emailOverrides.put(line("a.example-x.com", "allow"));
      await emailOverrides.put({ ...line("b.example-x.com", "allow"), reason: "changed my mind" });
      expect(await emailOverrides.list()).toEqual([
        line("a.example-x.com", "allow"),
        { ...line("b.example-x.com", "allow"), reason: "changed my mind" },
      ]);
      expect(await emailOverrides.remove("a.example-x.com")).toBe(true);
      expect(await emailOverrides.remove("a.example-x.com")).toBe(false);
      expect((await emailOverrides.list()).map((l) => l.domain)).toEqual(["b.example-x.com"]);
    });

    test("another instance's watch sees a line added, and sees it expire without asking again", async () => {
      const { emailOverrides } = await backend.fresh();
      const other = await backend.another();
      const clock = { now: NOW.getTime() };
      const watch = new OverrideWatch(
        other.emailOverrides,
        (l) => l.domain,
        () => clock.now,
      );
      expect(await watch.refresh()).toBe(false);
      await emailOverrides.put(line("c.example-x.com", "deny", "2026-11-25T12:00:05.000Z"));
      expect(await watch.refresh()).toBe(true);
      expect(watch.active.get("c.example-x.com")?.action).toBe("deny");
      expect(await watch.refresh()).toBe(false);
      clock.now += 5_000;
      expect(watch.expire()).toBe(true);
      expect(watch.active.size).toBe(0);
    });
  });

  describe("report comments", () => {
    test("each key's newest comments about the addresses asked, in the window; reports without one left out", async () => {
      const { keys, reports } = await backend.fresh();
      const [a, b] = [(await keys.create({ name: "a" })).key.id, (await keys.create({ name: "b" })).key.id];
      let nowMs = day1;
      const report = async (keyId: string, ip: string, category: "bot" | "attack", comment: string | null) => {
        nowMs += 60_000;
        // Nothing earlier counts as a duplicate: each report is stored.
        const limits = { dedupSinceMs: nowMs, daySinceMs: 0, dailyAddresses: 1_000 };
        expect(await reports.add(keyId, [{ ip, category, comment }], nowMs, limits)).toEqual(["stored"]);
        return { ip, keyId, category, comment: comment ?? "", reportedAtMs: nowMs };
      };
      await report(a, "81.2.69.142", "bot", "before the window");
      const since = nowMs + 1;
      const first = await report(a, "81.2.69.142", "bot", "first");
      const second = await report(a, "81.2.69.142", "attack", "second <b>\u202e\n");
      await report(a, "81.2.69.142", "bot", null);
      await report(a, "81.2.69.142", "bot", "");
      const third = await report(a, "81.2.69.142", "attack", "third");
      const fourth = await report(a, "81.2.69.142", "bot", "fourth");
      const fromB = await report(b, "81.2.69.142", "attack", "from b");
      const other = await report(a, "2a00:1450::1", "bot", "other address");
      await report(a, "89.160.20.112", "bot", "not asked for");
      const byAddressAndKey = async (perKey: number) =>
        Object.fromEntries(
          Map.groupBy(await reports.comments(["81.2.69.142", "2a00:1450::1", "192.0.2.1"], since, perKey), (c) =>
            c.keyId === a ? `${c.ip} a` : `${c.ip} b`,
          ),
        );
      expect(await byAddressAndKey(3)).toEqual({
        "81.2.69.142 a": [fourth, third, second],
        "81.2.69.142 b": [fromB],
        "2a00:1450::1 a": [other],
      });
      expect((await byAddressAndKey(10))["81.2.69.142 a"]).toEqual([fourth, third, second, first]);
      expect(await reports.comments([], since, 3)).toEqual([]);
    });
  });
});
