import { expect, test } from "bun:test";
import { answerHeaders } from "../../src/http/limits.ts";

const quota = { allowed: true, limit: 1000, used: 10, resetsAt: "2026-12-01T00:00:00Z" } as const;

test("each answer keeps the headers it was built with, though the shapes are refilled", () => {
  const first = new Response("{}", { headers: answerHeaders({ allowed: true, limit: 60, remaining: 59 }, quota, 1) });
  const second = new Response("{}", { headers: answerHeaders({ allowed: true, limit: 120, remaining: 7 }, { ...quota, limit: 5, used: 1 }, 0) });
  expect(Object.fromEntries(first.headers)).toEqual({
    "content-type": "application/json",
    "x-ratelimit-limit": "60",
    "x-ratelimit-remaining": "59",
    "x-quota-limit": "1000",
    "x-quota-reset": "2026-12-01T00:00:00Z",
    "x-quota-remaining": "989",
  });
  expect(second.headers.get("x-ratelimit-remaining")).toBe("7");
  expect(second.headers.get("x-quota-remaining")).toBe("4");
});

test("each shape carries only its own headers", () => {
  expect([...answerHeaders(null, null, 0).keys()]).toEqual(["content-type"]);
  expect([...answerHeaders({ allowed: true, limit: 60, remaining: 1 }, null, 0).keys()].sort()).toEqual(["content-type", "x-ratelimit-limit", "x-ratelimit-remaining"]);
  expect([...answerHeaders(null, quota, 1).keys()].sort()).toEqual(["content-type", "x-quota-limit", "x-quota-remaining", "x-quota-reset"]);
});

test("a refill rewrites what changed and keeps what did not, in every shape", () => {
  const headersOf = (r: Parameters<typeof answerHeaders>[0], q: Parameters<typeof answerHeaders>[1], used: 0 | 1) =>
    Object.fromEntries(new Response("{}", { headers: answerHeaders(r, q, used) }).headers);
  const rate = (limit: number, remaining: number) => ({ allowed: true, limit, remaining }) as const;
  expect(headersOf(rate(60, 10), quota, 1)).toMatchObject({ "x-ratelimit-limit": "60", "x-ratelimit-remaining": "10", "x-quota-remaining": "989" });
  expect(headersOf(rate(60, 9), quota, 0)).toMatchObject({ "x-ratelimit-limit": "60", "x-ratelimit-remaining": "9", "x-quota-remaining": "990" });
  const nextMonth = { ...quota, used: 0, resetsAt: "2027-01-01T00:00:00Z" };
  expect(headersOf(rate(30, 9), nextMonth, 1)).toEqual({
    "content-type": "application/json",
    "x-ratelimit-limit": "30",
    "x-ratelimit-remaining": "9",
    "x-quota-limit": "1000",
    "x-quota-reset": "2027-01-01T00:00:00Z",
    "x-quota-remaining": "999",
  });
  expect(headersOf(rate(60, 10), quota, 1)).toMatchObject({ "x-ratelimit-limit": "60", "x-quota-reset": "2026-12-01T00:00:00Z", "x-quota-remaining": "989" });
  expect(headersOf(null, { ...quota, limit: 3, used: 2 }, 1)).toEqual({
    "content-type": "application/json",
    "x-quota-limit": "3",
    "x-quota-reset": "2026-12-01T00:00:00Z",
    "x-quota-remaining": "0",
  });
});
