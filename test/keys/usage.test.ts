import { SqliteWrites } from "../../src/stores/sqlite/lock-wait.ts";
import { describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/stores/sqlite/database.ts";
import { inMemoryChangeSignal } from "../../src/stores/sqlite/change-signal.ts";
import { SqliteKeyStore } from "../../src/stores/sqlite/key-store.ts";
import { SqliteUsageStore } from "../../src/stores/sqlite/usage-store.ts";
import { ADDRESS_REFRESH_MS, UsageRecorder } from "../../src/keys/usage-recorder.ts";
import type { LastUse, UsageRow, UsageStore } from "../../src/keys/usage-store.ts";

function setup() {
  const db = openDatabase(":memory:");
  const keys = new SqliteKeyStore(db, new SqliteWrites(db), inMemoryChangeSignal());
  const store = new SqliteUsageStore(db, new SqliteWrites(db));
  return { db, keys, store, recorder: new UsageRecorder(store) };
}

const day1 = Date.UTC(2026, 10, 23, 10);

describe("usage accounting in SQLite", () => {
  test("last month's checks do not count against this month's quota", async () => {
    const { keys, store, recorder } = setup();
    const { key } = await keys.create({ name: "a" });
    recorder.record(key.id, "ip", "ok", Date.UTC(2026, 9, 31, 23));
    await recorder.flush();
    expect(store.ipQuotaUsedThisMonth(day1).get(key.id)).toBeUndefined();
  });

  test("a failed flush keeps the counts for the next one", async () => {
    const { db, keys, store, recorder } = setup();
    const { key } = await keys.create({ name: "a" });
    recorder.record(key.id, "email", "ok", day1);
    db.exec("CREATE TRIGGER fail BEFORE INSERT ON usage_daily BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    await expect(recorder.flush()).rejects.toThrow(/disk full/);
    db.exec("DROP TRIGGER fail");
    await recorder.flush();
    expect((await store.usageOf([key.id], 0, day1)).get(key.id)?.today.email).toBe(1);
  });
});

describe("usage recorder", () => {
  test("a key's client address is wanted again only ADDRESS_REFRESH_MS after the last one seen; a use without one does not count as seen", () => {
    const recorder = new UsageRecorder({
      flush: async () => {},
      usageOf: async () => new Map(),
      outcomesOf: async () => [],
    });
    expect(recorder.wantsAddress("k", day1)).toBe(true);
    recorder.record("k", "email", "ok", day1);
    expect(recorder.wantsAddress("k", day1)).toBe(true);
    recorder.usedFrom("k", "192.0.2.7", day1);
    expect(recorder.wantsAddress("k", day1 + ADDRESS_REFRESH_MS - 1)).toBe(false);
    expect(recorder.wantsAddress("other", day1)).toBe(true);
    expect(recorder.wantsAddress("k", day1 + ADDRESS_REFRESH_MS)).toBe(true);
  });

  test("while a write is on its way requests go on being counted, and a failed write's counts join the next one", async () => {
    const writes: { rows: UsageRow[]; lastUsed: ReadonlyMap<string, LastUse>; settle: (ok: boolean) => void }[] = [];
    const store: UsageStore = {
      flush: (rows, lastUsed) =>
        new Promise((resolve, reject) =>
          writes.push({
            rows: [...rows],
            lastUsed,
            settle: (ok) => (ok ? resolve() : reject(new Error("connection lost"))),
          }),
        ),
      usageOf: async () => new Map(),
      outcomesOf: async () => [],
    };
    const recorder = new UsageRecorder(store);
    recorder.record("k1", "ip", "ok", day1);
    const failing = recorder.flush();
    recorder.record("k1", "ip", "ok", day1 + 5);
    recorder.usedFrom("k2", "192.0.2.7", day1 + 6);
    recorder.record("k2", "email", "ok", day1 + 6);
    const queued = recorder.flush();
    expect(writes).toHaveLength(1);
    writes[0].settle(false);
    await expect(failing).rejects.toThrow(/connection lost/);
    await Bun.sleep(0);
    expect(writes).toHaveLength(2);
    const total = (key: string) => writes[1].rows.filter((r) => r.keyId === key).reduce((n, r) => n + r.count, 0);
    expect([total("k1"), total("k2")]).toEqual([2, 1]);
    expect([...writes[1].lastUsed]).toEqual([
      ["k1", { at: new Date(day1 + 5).toISOString(), ip: null }],
      ["k2", { at: new Date(day1 + 6).toISOString(), ip: "192.0.2.7" }],
    ]);
    writes[1].settle(true);
    await queued;
  });
});
