import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { IpOverrideLine } from "../../src/ip/overrides/ip-override.ts";
import { ipOverrideWatch } from "../../src/ip/overrides/ip-override-watch.ts";
import { parseIpAddress } from "../../src/ip/address/parse.ts";
import { POSTGRES_SETUP_TIMEOUT_MS, startTestPostgres } from "../support/postgres.ts";
import { STORE_BACKENDS } from "../support/store-backends.ts";
import { scaled } from "../support/slowness.ts";

setDefaultTimeout(scaled(20_000));
beforeAll(startTestPostgres, POSTGRES_SETUP_TIMEOUT_MS);

const NOW = new Date(Date.UTC(2026, 10, 25, 12));
const line = (target: string, action: "allow" | "deny", until: string | null = null): IpOverrideLine => ({
  target,
  action,
  reason: `why ${target}`,
  author: "ops",
  created: NOW.toISOString(),
  until,
});

describe.each(STORE_BACKENDS)("$name: the IP override store", (backend) => {
  test("adds, replaces, finds, lists and removes lines; each change is one of the changes since a generation", async () => {
    const { ipOverrides } = await backend.fresh();
    const start = await ipOverrides.changesSince(null);
    expect(start).toMatchObject({ all: [] });
    await ipOverrides.put(line("AS64500", "deny", "2027-01-01T00:00:00.000Z"));
    await ipOverrides.put(line("81.2.69.0/24", "allow"));
    const afterTwo = await ipOverrides.changesSince(start.generation);
    expect("changed" in afterTwo && afterTwo.changed.map((c) => [c.target, c.line?.action])).toEqual([
      ["AS64500", "deny"],
      ["81.2.69.0/24", "allow"],
    ]);
    await ipOverrides.put({ ...line("AS64500", "allow"), reason: "changed my mind" });
    expect(await ipOverrides.changesSince(afterTwo.generation)).toMatchObject({
      changed: [{ target: "AS64500", line: { action: "allow", reason: "changed my mind" } }],
    });
    expect(await ipOverrides.find("AS64500")).toEqual({ ...line("AS64500", "allow"), reason: "changed my mind" });
    expect(await ipOverrides.find("AS64501")).toBeNull();
    expect(await ipOverrides.list()).toEqual([
      line("81.2.69.0/24", "allow"),
      { ...line("AS64500", "allow"), reason: "changed my mind" },
    ]);
    const beforeRemove = (await ipOverrides.changesSince(null)).generation;
    expect(await ipOverrides.remove("81.2.69.0/24")).toBe(true);
    expect(await ipOverrides.changesSince(beforeRemove)).toMatchObject({
      changed: [{ target: "81.2.69.0/24", line: null }],
    });
    expect(await ipOverrides.remove("81.2.69.0/24")).toBe(false);
    expect((await ipOverrides.list()).map((l) => l.target)).toEqual(["AS64500"]);
    const now = await ipOverrides.changesSince(null);
    expect(await ipOverrides.changesSince(now.generation)).toEqual({ generation: now.generation, changed: [] });
  });

  test("counts lines by kind and by the API key that added them, through every change, hand edits included", async () => {
    const { ipOverrides, emailOverrides } = await backend.fresh();
    await ipOverrides.put({ ...line("81.2.69.1", "deny"), keyId: "key_a" });
    await ipOverrides.put({ ...line("81.2.69.2", "deny"), keyId: "key_a" });
    await ipOverrides.put({ ...line("81.2.69.3", "deny"), keyId: "key_b" });
    await ipOverrides.put(line("81.2.69.4", "deny"));
    expect(await ipOverrides.counts("key_a")).toEqual({ total: 4, byKey: 2 });
    expect(await ipOverrides.counts(null)).toEqual({ total: 4, byKey: 0 });
    expect(await emailOverrides.counts("key_a")).toEqual({ total: 0, byKey: 0 });
    // Replaced by another key: it counts against that key now; replacing changes no total.
    await ipOverrides.put({ ...line("81.2.69.1", "allow"), keyId: "key_b" });
    expect(await ipOverrides.counts("key_a")).toEqual({ total: 4, byKey: 1 });
    expect(await ipOverrides.counts("key_b")).toEqual({ total: 4, byKey: 2 });
    await ipOverrides.remove("81.2.69.3");
    expect(await ipOverrides.counts("key_b")).toEqual({ total: 3, byKey: 1 });
    await backend.execute("DELETE FROM ip_overrides WHERE key_id = 'key_a'");
    expect(await ipOverrides.counts("key_a")).toEqual({ total: 2, byKey: 0 });
    expect((await ipOverrides.counts("key_c")).byKey).toBe(0);
  });

  test("pages go in target order from a cursor, filtered by action and by the start of the target", async () => {
    const { ipOverrides } = await backend.fresh();
    const targets = ["81.2.69.1", "81.2.69.2", "81.2.70.0/24", "AS64500", "AS64501", "2a00:1450::/32"];
    for (const [i, target] of targets.entries()) await ipOverrides.put(line(target, i % 2 === 0 ? "deny" : "allow"));
    const order = [...targets].sort();
    const all = (await ipOverrides.list()).map((l) => l.target);
    expect(all).toEqual(order);
    const first = await ipOverrides.page({}, null, 2);
    const second = await ipOverrides.page({}, first[1].target, 2);
    const rest = await ipOverrides.page({}, second[1].target, 10);
    expect([...first, ...second, ...rest].map((l) => l.target)).toEqual(order);
    expect((await ipOverrides.page({ prefix: "81.2.69." }, null, 10)).map((l) => l.target)).toEqual([
      "81.2.69.1",
      "81.2.69.2",
    ]);
    expect((await ipOverrides.page({ prefix: "AS", action: "allow" }, null, 10)).map((l) => l.target)).toEqual([
      "AS64500",
    ]);
    expect((await ipOverrides.page({ action: "deny" }, "81.2.69.1", 10)).map((l) => l.target)).toEqual([
      "81.2.70.0/24",
      "AS64501",
    ]);
    expect(await ipOverrides.page({ prefix: "9" }, null, 10)).toEqual([]);
  });

  test("a reader whose changes have left the log reads every line again", async () => {
    const { ipOverrides } = await backend.fresh();
    const start = (await ipOverrides.changesSince(null)).generation;
    await ipOverrides.put(line("81.2.69.1", "deny"));
    await backend.execute(
      "INSERT INTO ip_overrides (target, action, reason, author, created_at) VALUES ('81.3.0.0', 'deny', 'by hand', 'ops', '2026-11-25')",
    );
    expect(await ipOverrides.changesSince(start)).toMatchObject({
      changed: [{ target: "81.2.69.1" }, { target: "81.3.0.0" }],
    });
    await backend.execute(`DELETE FROM override_changes WHERE seq <= ${start + 1}`);
    const behind = await ipOverrides.changesSince(start);
    expect("all" in behind && behind.all.map((l) => l.target)).toEqual(["81.2.69.1", "81.3.0.0"]);
    expect(await ipOverrides.changesSince(start + 1)).toMatchObject({ changed: [{ target: "81.3.0.0" }] });
  });

  if (backend.name === "SQLite")
    test("the log keeps the last 10,000 changes", async () => {
      const { ipOverrides } = await backend.fresh();
      await backend.execute(bulkInsert(10_005));
      const { generation } = await ipOverrides.changesSince(null);
      const kept = await ipOverrides.changesSince(generation - 10_000);
      expect("changed" in kept && [kept.changed.length, kept.changed[0].target]).toEqual([10_000, "82.0.0.5"]);
      expect("all" in (await ipOverrides.changesSince(generation - 10_001))).toBe(true);
    });

  if (backend.name === "PostgreSQL")
    test("a TRUNCATE empties the log and the counts: every reader reads every line again", async () => {
      const { ipOverrides } = await backend.fresh();
      await ipOverrides.put({ ...line("81.2.69.1", "deny"), keyId: "key_a" });
      const { generation } = await ipOverrides.changesSince(null);
      await backend.execute("TRUNCATE ip_overrides");
      expect(await ipOverrides.changesSince(generation)).toMatchObject({ all: [] });
      expect(await ipOverrides.counts("key_a")).toEqual({ total: 0, byKey: 0 });
    });

  test("another instance's watch applies each change, and an end without asking again", async () => {
    const { ipOverrides } = await backend.fresh();
    const other = await backend.another();
    const clock = { now: NOW.getTime() };
    const { watch, lines } = ipOverrideWatch(other.ipOverrides, () => clock.now);
    const decides = (address: string) => lines.covering(parseIpAddress(address)!, 0, 128)?.line.target ?? null;
    await watch.refresh();
    expect(watch.active.size).toBe(0);
    await ipOverrides.put(line("81.2.69.7", "deny", "2026-11-25T12:00:05.000Z"));
    await ipOverrides.put(line("81.2.69.0/24", "allow"));
    expect(await watch.refresh()).toBe(true);
    expect([...watch.active.keys()].sort()).toEqual(["81.2.69.0/24", "81.2.69.7"]);
    expect(decides("81.2.69.7")).toBe("81.2.69.7");
    expect(await watch.refresh()).toBe(false);
    clock.now += 5_000;
    expect(await watch.refresh()).toBe(true);
    expect([...watch.active.keys()]).toEqual(["81.2.69.0/24"]);
    expect(decides("81.2.69.7")).toBe("81.2.69.0/24");
    expect(watch.takeExpired().map((l) => l.target)).toEqual(["81.2.69.7"]);
    await ipOverrides.remove("81.2.69.0/24");
    expect(await watch.refresh()).toBe(true);
    expect(watch.active.size).toBe(0);
    expect(decides("81.2.69.7")).toBeNull();
  });
});

/** An INSERT of `n` lines in one statement, as a hand at the database's shell might run. */
function bulkInsert(n: number): string {
  const values = Array.from(
    { length: n },
    (_, i) => `('82.${i >> 16}.${(i >> 8) & 255}.${i & 255}', 'deny', 'bulk', 'ops', '2026-11-25')`,
  );
  return `INSERT INTO ip_overrides (target, action, reason, author, created_at) VALUES ${values.join(", ")}`;
}
