import { describe, expect, test } from "bun:test";
import { createTestApp } from "../support/test-app.ts";

const RATE_LIMITED = {
  error: "rate_limit_exceeded",
  message: "Rate limit exceeded. Please try again later.",
  retry_after: 60,
};

describe("rate limit over HTTP", () => {
  test("the burst passes with counting-down headers, then an exact 429, then a refill", async () => {
    const { request, newKey, clock } = await createTestApp({ ratePerMinute: 60, rateBurst: 2 });
    const { secret } = await newKey();
    const check = () => request("/v1/check?email=a@gmail.com", { key: secret });

    const first = await check();
    expect([first.status, first.headers.get("x-ratelimit-limit"), first.headers.get("x-ratelimit-remaining")]).toEqual([
      200,
      "2",
      "1",
    ]);
    expect((await check()).headers.get("x-ratelimit-remaining")).toBe("0");

    const refused = await check();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toBe("application/json");
    expect(refused.headers.get("x-ratelimit-reset")).toBe("1");
    expect(await refused.json()).toEqual(RATE_LIMITED);

    clock.now += 1_000;
    expect((await check()).status).toBe(200);
  });

  test("a per-key rate overrides the default", async () => {
    const { request, newKey } = await createTestApp({ ratePerMinute: 6000, rateBurst: 100 });
    const { secret } = await newKey("slow", { ratePerMinute: 1 });
    expect((await request("/v1/check?email=a@gmail.com", { key: secret })).status).toBe(200);
    const refused = await request("/v1/check?email=a@gmail.com", { key: secret });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-reset")).toBe("60");
  });

  test("the limit comes before validation, and bad requests use tokens too", async () => {
    const { request, newKey } = await createTestApp({ ratePerMinute: 60, rateBurst: 1 });
    const { secret } = await newKey();
    expect((await request("/v1/check?email=bad", { key: secret })).status).toBe(400);
    expect((await request("/v1/check?email=bad", { key: secret })).status).toBe(429);
  });

  test("401s never touch a bucket", async () => {
    const { request, newKey } = await createTestApp({ ratePerMinute: 60, rateBurst: 1 });
    const { secret } = await newKey();
    for (let i = 0; i < 5; i++)
      expect((await request("/v1/check?email=a@gmail.com", { key: "rk_wrong" })).status).toBe(401);
    expect((await request("/v1/check?email=a@gmail.com", { key: secret })).status).toBe(200);
  });

  test("rate limiting can be switched off", async () => {
    const { request, newKey } = await createTestApp({ ratePerMinute: 0 });
    const { secret } = await newKey();
    const res = await request("/v1/check?email=a@gmail.com", { key: secret });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });
});
