import { describe, expect, test } from "bun:test";
import { type LimitOutcome, limitHeaders } from "../../src/http/admission.ts";

const quota = { allowed: true, limit: 1000, used: 10, resetsAt: "2026-12-01T00:00:00Z" } as const;
const rate = { allowed: true, limit: 60, remaining: 59 } as const;
const outcome = (o: Partial<LimitOutcome>): LimitOutcome => ({ rate: null, quota: null, refusal: null, ...o });

describe("the limit headers of an admitted request", () => {
  test("each limit that is on adds its own headers, and nothing else", () => {
    expect(limitHeaders(outcome({}), 0)).toEqual({ "content-type": "application/json" });
    expect(limitHeaders(outcome({ rate }), 0)).toEqual({
      "content-type": "application/json",
      "x-ratelimit-limit": "60",
      "x-ratelimit-remaining": "59",
    });
    expect(limitHeaders(outcome({ quota }), 1)).toEqual({
      "content-type": "application/json",
      "x-quota-limit": "1000",
      "x-quota-remaining": "989",
      "x-quota-reset": "2026-12-01T00:00:00Z",
    });
  });

  test("the answer that uses up a check shows it gone; a refused one does not", () => {
    expect(limitHeaders(outcome({ rate, quota }), 1)["x-quota-remaining"]).toBe("989");
    expect(limitHeaders(outcome({ rate, quota }), 0)["x-quota-remaining"]).toBe("990");
    expect(limitHeaders(outcome({ quota: { ...quota, limit: 3, used: 3 } }), 1)["x-quota-remaining"]).toBe("0");
  });
});

describe("the headers of a 429", () => {
  test("rate limited: nothing remaining, the reset in seconds, and the IP check's quota beside", () => {
    const refused = outcome({ rate: { allowed: false, limit: 60, retryAfterSeconds: 2 }, quota });
    expect(limitHeaders(refused, 0)).toEqual({
      "content-type": "application/json",
      "x-ratelimit-limit": "60",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": "2",
      "x-quota-limit": "1000",
      "x-quota-remaining": "990",
      "x-quota-reset": "2026-12-01T00:00:00Z",
    });
  });

  test("quota used up: the reset is the month's end, and the rate limit still shows what it has left", () => {
    const refused = outcome({
      rate,
      quota: { allowed: false, limit: 5, used: 5, resetsAt: "2026-12-01T00:00:00Z", retryAfterSeconds: 3600 },
    });
    expect(limitHeaders(refused, 0)).toEqual({
      "content-type": "application/json",
      "x-ratelimit-limit": "60",
      "x-ratelimit-remaining": "59",
      "x-ratelimit-reset": "3600",
      "x-quota-limit": "5",
      "x-quota-remaining": "0",
      "x-quota-reset": "2026-12-01T00:00:00Z",
    });
  });

  test("both refused: the rate limit's reset, which comes sooner, is the one given", () => {
    const refused = outcome({
      rate: { allowed: false, limit: 60, retryAfterSeconds: 1 },
      quota: { allowed: false, limit: 5, used: 5, resetsAt: "2026-12-01T00:00:00Z", retryAfterSeconds: 3600 },
    });
    expect(limitHeaders(refused, 0)["x-ratelimit-reset"]).toBe("1");
  });
});
