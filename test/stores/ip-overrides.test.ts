import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { IpOverrideLine } from "../../src/ip/overrides/ip-override.ts";
import { IpOverrideWatch } from "../../src/ip/overrides/ip-override-watch.ts";
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
  test("adds, replaces, lists and removes lines; each change moves the generation", async () => {
    const { ipOverrides } = await backend.fresh();
    const start = await ipOverrides.generation();
    await ipOverrides.put(line("AS64500", "deny", "2027-01-01T00:00:00.000Z"));
    await ipOverrides.put(line("198.51.100.0/24", "allow"));
    const afterTwo = await ipOverrides.generation();
    expect(afterTwo).toBeGreaterThan(start);
    await ipOverrides.put({ ...line("AS64500", "allow"), reason: "changed my mind" });
    expect(await ipOverrides.generation()).toBeGreaterThan(afterTwo);
    expect(await ipOverrides.list()).toEqual([
      line("198.51.100.0/24", "allow"),
      { ...line("AS64500", "allow"), reason: "changed my mind" },
    ]);
    const beforeRemove = await ipOverrides.generation();
    expect(await ipOverrides.remove("198.51.100.0/24")).toBe(true);
    expect(await ipOverrides.generation()).toBeGreaterThan(beforeRemove);
    expect(await ipOverrides.remove("198.51.100.0/24")).toBe(false);
    expect((await ipOverrides.list()).map((l) => l.target)).toEqual(["AS64500"]);
  });

  test("another instance's watch sees a line added and removed, and sees it expire without asking again", async () => {
    const { ipOverrides } = await backend.fresh();
    const other = await backend.another();
    const clock = { now: NOW.getTime() };
    const watch = new IpOverrideWatch(other.ipOverrides, () => clock.now);
    await watch.refresh();
    expect(watch.active).toEqual([]);
    await ipOverrides.put(line("203.0.113.7", "deny", "2026-11-25T12:00:05.000Z"));
    await ipOverrides.put(line("203.0.113.8", "allow"));
    expect(await watch.refresh()).toBe(true);
    expect(watch.active.map((l) => l.target)).toEqual(["203.0.113.7", "203.0.113.8"]);
    expect(await watch.refresh()).toBe(false);
    clock.now += 5_000;
    expect(await watch.refresh()).toBe(true);
    expect(watch.active.map((l) => l.target)).toEqual(["203.0.113.8"]);
    await ipOverrides.remove("203.0.113.8");
    expect(await watch.refresh()).toBe(true);
    expect(watch.active).toEqual([]);
  });
});
