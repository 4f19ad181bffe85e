import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { GcPacer } from "../../src/app/gc-pacer.ts";
import { TrafficCounter } from "../../src/metrics/traffic-counter.ts";
import { createTestApp } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

// Starts a server and sends traffic: over 4 s on a loaded two-core machine.
setDefaultTimeout(scaled(20_000));

describe("collections are paced by traffic", () => {
  test("a busy server collects each period; an idle one never", () => {
    const traffic = new TrafficCounter();
    let collections = 0;
    const pacer = new GcPacer(traffic, () => collections++, 100);
    pacer.tick();
    expect(collections).toBe(0);

    traffic.served += 100;
    pacer.tick();
    expect(collections).toBe(1);
    pacer.tick();
    expect(collections).toBe(1); // nothing new since

    traffic.served += 99;
    pacer.tick();
    expect(collections).toBe(1); // below the threshold: left to the engine
    traffic.served += 1;
    pacer.tick();
    expect(collections).toBe(2);
  });
});

describe("the API counts what it serves", () => {
  test("answers and refusals on both endpoints count; other paths do not", async () => {
    const t = await createTestApp();
    const { secret } = await t.newKey();
    await t.request("/v1/check?email=a@gmail.com", { key: secret });
    await t.request("/v1/ip-reputation-check?ip=8.8.8.8", { key: secret });
    await t.request("/v1/check?email=a@gmail.com");
    await t.request("/healthz");
    expect(t.deps.traffic.served).toBe(3);
  });
});
