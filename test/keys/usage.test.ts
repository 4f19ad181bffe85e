import { describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/db.ts";
import { inMemoryChangeSignal } from "../../src/keys/change-signal.ts";
import { KeyStore } from "../../src/keys/key-store.ts";
import { UsageRecorder } from "../../src/keys/usage-recorder.ts";
import { UsageStore } from "../../src/keys/usage-store.ts";

function setup() {
  const db = openDatabase(":memory:");
  const keys = new KeyStore(db, inMemoryChangeSignal());
  const store = new UsageStore(db, keys);
  return { db, keys, store, recorder: new UsageRecorder(store) };
}

const day1 = Date.UTC(2026, 10, 23, 10);

describe("usage accounting", () => {
  test("counts by key, day, endpoint and outcome, written on flush", () => {
    const { keys, store, recorder } = setup();
    const { key } = keys.create({ name: "a" });
    recorder.record(key.id, "ip", "ok", day1);
    recorder.record(key.id, "ip", "ok", day1 + 1);
    recorder.record(key.id, "ip", "bad_request", day1 + 2);
    recorder.record(key.id, "email", "ok", day1 + 3);
    expect(store.usageOf([key.id], 0, day1).get(key.id)).toEqual({ today: {}, month: {}, ipQuotaUsed: 0, daily: [] });
    recorder.flush();
    expect(store.usageOf([key.id], 0, day1).get(key.id)).toEqual({ today: { ip: 3, email: 1 }, month: { ip: 3, email: 1 }, ipQuotaUsed: 2, daily: [] });
    expect(store.ipQuotaUsedThisMonth(day1).get(key.id)).toBe(2);
    expect(keys.list()[0].lastUsedAt).toBe(new Date(day1 + 3).toISOString());
  });

  test("adds to earlier flushes and splits at UTC midnight", () => {
    const { keys, store, recorder } = setup();
    const { key } = keys.create({ name: "a" });
    recorder.record(key.id, "ip", "ok", day1);
    recorder.flush();
    recorder.record(key.id, "ip", "ok", day1 + 1);
    recorder.record(key.id, "ip", "ok", Date.UTC(2026, 10, 24, 0, 0, 1));
    recorder.flush();
    const other = keys.create({ name: "b" }).key;
    const usage = store.usageOf([key.id, other.id], 30, Date.UTC(2026, 10, 24, 1));
    expect(usage.get(key.id)!.daily).toEqual([
      { day: "2026-11-23", endpoint: "ip", count: 2 },
      { day: "2026-11-24", endpoint: "ip", count: 1 },
    ]);
    expect(usage.get(key.id)!.today).toEqual({ ip: 1 });
    expect(usage.get(other.id)).toEqual({ today: {}, month: {}, ipQuotaUsed: 0, daily: [] });
  });

  test("the chart reaches into last month while the totals stay in this one", () => {
    const { keys, store, recorder } = setup();
    const { key } = keys.create({ name: "a" });
    recorder.record(key.id, "email", "ok", Date.UTC(2026, 9, 20));
    recorder.record(key.id, "email", "ok", Date.UTC(2026, 10, 2));
    recorder.flush();
    const usage = store.usageOf([key.id], 30, Date.UTC(2026, 10, 3))!.get(key.id)!;
    expect(usage.month).toEqual({ email: 1 });
    expect(usage.daily.map((d) => d.day)).toEqual(["2026-10-20", "2026-11-02"]);
  });

  test("last month's checks do not count against this month's quota", () => {
    const { keys, store, recorder } = setup();
    const { key } = keys.create({ name: "a" });
    recorder.record(key.id, "ip", "ok", Date.UTC(2026, 9, 31, 23));
    recorder.flush();
    expect(store.ipQuotaUsedThisMonth(day1).get(key.id)).toBeUndefined();
  });

  test("a failed flush keeps the counts for the next one", () => {
    const { db, keys, store, recorder } = setup();
    const { key } = keys.create({ name: "a" });
    recorder.record(key.id, "email", "ok", day1);
    db.exec("CREATE TRIGGER fail BEFORE INSERT ON usage_daily BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    expect(() => recorder.flush()).toThrow(/disk full/);
    db.exec("DROP TRIGGER fail");
    recorder.flush();
    expect(store.usageOf([key.id], 0, day1).get(key.id)?.today.email).toBe(1);
  });
});
