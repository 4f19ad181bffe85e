import { describe, expect, test } from "bun:test";
import { RateLimiter, ratePolicyFor } from "../../src/limits/rate-limiter.ts";

const policy = { perMinute: 60, burst: 5 };

describe("token bucket", () => {
  test("honours the burst, then refuses with the seconds until the next token", () => {
    const limiter = new RateLimiter();
    const remaining = [];
    for (let i = 0; i < 5; i++) {
      const d = limiter.take("k", policy, 1_000);
      expect(d?.allowed).toBe(true);
      if (d?.allowed) remaining.push(d.remaining);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    expect(limiter.take("k", policy, 1_000)).toEqual({ allowed: false, limit: 5, retryAfterSeconds: 1 });
  });

  test("refills at the configured rate and never beyond the burst", () => {
    const limiter = new RateLimiter();
    for (let i = 0; i < 5; i++) limiter.take("k", policy, 0);
    expect(limiter.take("k", policy, 999)?.allowed).toBe(false);
    expect(limiter.take("k", policy, 1_000)?.allowed).toBe(true);
    expect(limiter.take("k", policy, 1_000)?.allowed).toBe(false);
    const later = limiter.take("k", policy, 1_000_000);
    expect(later).toEqual({ allowed: true, limit: 5, remaining: 4 });
  });

  test("keeps one bucket per key", () => {
    const limiter = new RateLimiter();
    for (let i = 0; i < 5; i++) limiter.take("a", policy, 0);
    expect(limiter.take("a", policy, 0)?.allowed).toBe(false);
    expect(limiter.take("b", policy, 0)?.allowed).toBe(true);
  });

  test("slow rates report a long wait", () => {
    const limiter = new RateLimiter();
    const slow = { perMinute: 2, burst: 1 };
    limiter.take("k", slow, 0);
    expect(limiter.take("k", slow, 0)).toEqual({ allowed: false, limit: 1, retryAfterSeconds: 30 });
  });

  test("a key's own rate refills like any other, even with a fresh policy object each call", () => {
    const limiter = new RateLimiter();
    const defaults = { perMinute: 600, burst: 120 };
    const take = (now: number) => limiter.take("k", ratePolicyFor(30, defaults), now)?.allowed;
    const burst = Array.from({ length: 31 }, () => take(0));
    expect(burst.filter(Boolean)).toHaveLength(30);
    expect(take(1_000)).toBe(false);
    expect(take(2_000)).toBe(true);
    expect(take(2_000)).toBe(false);
  });

  test("a changed policy keeps the tokens left, within the new burst", () => {
    const limiter = new RateLimiter();
    for (let i = 0; i < 3; i++) limiter.take("k", { perMinute: 60, burst: 10 }, 0);
    expect(limiter.take("k", { perMinute: 60, burst: 5 }, 0)).toEqual({ allowed: true, limit: 5, remaining: 4 });
  });

  test("a rate of 0 means unlimited", () => {
    expect(new RateLimiter().take("k", { perMinute: 0, burst: 1 }, 0)).toBeNull();
  });

  test("per-key rates cap the burst at one minute of the rate", () => {
    const defaults = { perMinute: 600, burst: 120 };
    expect(ratePolicyFor(null, defaults)).toBe(defaults);
    expect(ratePolicyFor(10, defaults)).toEqual({ perMinute: 10, burst: 10 });
    expect(ratePolicyFor(6000, defaults)).toEqual({ perMinute: 6000, burst: 120 });
  });
});
