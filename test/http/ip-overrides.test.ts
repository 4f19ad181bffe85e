import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseCidr } from "../../src/ip/address/address-range.ts";
import { FLAG, ReputationIndex, ReputationIndexBuilder } from "../../src/ip/indexes/reputation-index.ts";
import { ipOverrideLine } from "../../src/ip/overrides/ip-override.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import { loadIpDatasets } from "../support/ip-datasets.ts";
import { makeDataDir } from "../support/processes.ts";
import { POSTGRES_SETUP_TIMEOUT_MS, startTestPostgres } from "../support/postgres.ts";
import { STORE_BACKENDS } from "../support/store-backends.ts";
import { bundledIpDatasets, createTestApp, testSnapshot } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

// The bundled IP data loads once per process; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(60_000));
beforeAll(startTestPostgres, POSTGRES_SETUP_TIMEOUT_MS);

/** The bundled data, with 81.2.69.0/24 on a confirmed-malicious feed: every address in it is bad. */
async function snapshotWithDropFeed(ip?: Awaited<ReturnType<typeof bundledIpDatasets>>) {
  const feed = new ReputationIndexBuilder();
  feed.add(parseCidr("81.2.69.0/24")!, { source: "spamhaus-drop", flags: FLAG.confirmedBad });
  return testSnapshot({ ...(ip ?? (await bundledIpDatasets())), feeds: new ReputationIndex(feed.build()) });
}

type Reasons = {
  rule: { id: string };
  override?: { target: string; action: string; reason: string; author: string; until: string | null; source: string };
};
type Rep = { risky: boolean; reputation: string; sum: number; reasons?: Reasons };

async function setup(
  stores?: NonNullable<Parameters<typeof createTestApp>[0]>["stores"],
  snapshot?: Awaited<ReturnType<typeof testSnapshot>>,
) {
  const t = await createTestApp({ stores, snapshot: snapshot ?? (await snapshotWithDropFeed()) });
  const { secret } = await t.newKey();
  // On PostgreSQL a new key reaches the instance by notification.
  const deadline = performance.now() + scaled(5_000);
  while (t.deps.authenticator.authenticate(secret).outcome !== "active" && performance.now() < deadline)
    await Bun.sleep(5);
  const reputation = async (ip: string): Promise<Rep> => {
    const res = await t.request(`/v1/ip-reputation-check?ip=${ip}&explain=1`, { key: secret });
    expect(res.status).toBe(200);
    return ((await res.json()) as { reputation: Rep }).reputation;
  };
  const put = async (target: string, action: "allow" | "deny", extra: { until?: string; author?: string } = {}) => {
    await t.stores.ipOverrides.put(
      ipOverrideLine(
        { target, action, reason: `why ${target}`, author: extra.author ?? "ops", until: extra.until },
        new Date(t.clock.now),
      ),
    );
    await t.ipOverrides.refresh();
  };
  return { ...t, reputation, put };
}

describe.each(STORE_BACKENDS)("IP override lines on $name", (backend) => {
  test("allow makes a feed's bad address ok and not risky, naming the line; its neighbours stay bad", async () => {
    const t = await setup(await backend.fresh());
    expect(await t.reputation("81.2.69.142")).toMatchObject({ risky: true, reputation: "bad" });
    await t.put("81.2.69.142", "allow", { author: "jane" });
    const allowed = await t.reputation("81.2.69.142");
    expect(allowed).toMatchObject({ risky: false, reputation: "ok" });
    expect(allowed.reasons!.rule.id).toBe("allowlisted");
    expect(allowed.reasons!.override).toEqual({
      target: "81.2.69.142",
      action: "allow",
      reason: "why 81.2.69.142",
      author: "jane",
      created: new Date(t.clock.now).toISOString(),
      until: null,
      source: "database",
    } as never);
    expect(await t.reputation("81.2.69.143")).toMatchObject({ risky: true, reputation: "bad" });
    expect((await t.reputation("81.2.69.143")).reasons!.override).toBeUndefined();
  });

  test("the most specific line decides: address over range over network; a longer prefix over a shorter", async () => {
    const t = await setup(await backend.fresh());
    await t.put("AS15169", "deny");
    await t.put("8.8.0.0/16", "allow");
    await t.put("8.8.8.0/24", "deny");
    await t.put("8.8.8.8", "allow");
    await t.put("81.2.69.128/25", "allow");
    await t.put("81.2.69.142", "deny");
    expect(await t.reputation("8.8.8.8")).toMatchObject({
      risky: false,
      reputation: "ok",
      reasons: { override: { target: "8.8.8.8" } },
    });
    expect(await t.reputation("8.8.8.9")).toMatchObject({
      risky: true,
      reputation: "bad",
      reasons: { rule: { id: "denylisted" }, override: { target: "8.8.8.0/24" } },
    });
    expect(await t.reputation("8.8.4.4")).toMatchObject({
      risky: false,
      reputation: "ok",
      reasons: { override: { target: "8.8.0.0/16" } },
    });
    // Another address of Google's network (AS15169) outside the ranges: the network's line.
    expect(await t.reputation("142.250.1.1")).toMatchObject({
      risky: true,
      reputation: "bad",
      reasons: { override: { target: "AS15169", action: "deny" } },
    });
    expect(await t.reputation("81.2.69.142")).toMatchObject({
      risky: true,
      reputation: "bad",
      reasons: { override: { target: "81.2.69.142" } },
    });
    expect(await t.reputation("81.2.69.143")).toMatchObject({
      risky: false,
      reputation: "ok",
      reasons: { override: { target: "81.2.69.128/25" } },
    });
    expect(await t.reputation("81.2.69.1")).toMatchObject({
      reputation: "bad",
      reasons: { rule: { id: "confirmed-bad" } },
    });
  });

  test("IPv6 lines", async () => {
    const t = await setup(await backend.fresh());
    await t.put("2001:4860::/32", "deny");
    await t.put("2001:4860:4860::8888", "allow");
    expect(await t.reputation("2001:4860:4860::8844")).toMatchObject({
      risky: true,
      reputation: "bad",
      reasons: { override: { target: "2001:4860::/32" } },
    });
    expect(await t.reputation("2001:4860:4860:0:0:0:0:8888")).toMatchObject({
      risky: false,
      reputation: "ok",
      reasons: { override: { target: "2001:4860:4860::8888" } },
    });
  });

  test("a line stops applying at its expiry, without asking the store again; removed, the feeds decide again", async () => {
    const t = await setup(await backend.fresh());
    await t.put("81.2.69.0/24", "allow", { until: new Date(t.clock.now + 60_000).toISOString() });
    expect(await t.reputation("81.2.69.5")).toMatchObject({
      reputation: "ok",
      reasons: { override: { until: new Date(t.clock.now + 60_000).toISOString() } },
    });
    t.clock.now += 60_000;
    await t.ipOverrides.refresh();
    expect(await t.reputation("81.2.69.5")).toMatchObject({
      reputation: "bad",
      reasons: { rule: { id: "confirmed-bad" } },
    });
    await t.put("81.2.69.5", "allow");
    expect((await t.reputation("81.2.69.5")).reputation).toBe("ok");
    await t.stores.ipOverrides.remove("81.2.69.5");
    await t.ipOverrides.refresh();
    expect((await t.reputation("81.2.69.5")).reputation).toBe("bad");
  });
});

describe("data/ip/allowlist.txt", () => {
  const dir = makeDataDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("its lines are allow lines without an author's expiry, and a more specific database line beats them", async () => {
    mkdirSync(join(dir, "ip"), { recursive: true });
    writeFileSync(join(dir, "ip", "allowlist.txt"), "# partners\n81.2.69.0/24\n8.8.8.8\n");
    const { ip } = await loadIpDatasets(dir, DEFAULT_THRESHOLDS);
    const t = await setup(undefined, await snapshotWithDropFeed(ip));
    expect(await t.reputation("81.2.69.142")).toMatchObject({
      risky: false,
      reputation: "ok",
      reasons: {
        rule: { id: "allowlisted" },
        override: {
          target: "81.2.69.0/24",
          action: "allow",
          author: "data/ip/allowlist.txt",
          until: null,
          source: "allowlist-file",
        },
      },
    });
    await t.put("81.2.69.142", "deny");
    expect(await t.reputation("81.2.69.142")).toMatchObject({
      reputation: "bad",
      reasons: { override: { target: "81.2.69.142", source: "database" } },
    });
    expect((await t.reputation("81.2.69.143")).reputation).toBe("ok");
    // The same target in both: the database's line.
    await t.put("8.8.8.8", "deny");
    expect(await t.reputation("8.8.8.8")).toMatchObject({
      reputation: "bad",
      reasons: { override: { source: "database" } },
    });
  });
});
