import { describe, expect, test } from "bun:test";
import { LocalMonthlyQuota } from "../../src/limits/local-monthly-quota.ts";

const nov = Date.UTC(2026, 10, 23, 12);

describe("monthly quota of one instance", () => {
  test("allows up to the limit, counting only what is reported as success", () => {
    const quota = new LocalMonthlyQuota(new Map(), nov);
    for (let i = 0; i < 3; i++) {
      expect(quota.check("k", 3, nov)?.allowed).toBe(true);
      quota.countSuccess("k", nov);
    }
    const refused = quota.check("k", 3, nov);
    expect(refused).toEqual({
      allowed: false,
      limit: 3,
      used: 3,
      resetsAt: "2026-12-01T00:00:00Z",
      retryAfterSeconds: 8 * 86400 - 12 * 3600,
    });
  });

  test("starts from the counts loaded at start-up", () => {
    const quota = new LocalMonthlyQuota(new Map([["k", 2]]), nov);
    expect(quota.check("k", 3, nov)).toMatchObject({ allowed: true, used: 2 });
  });

  test("resets at the first instant of the next UTC month", () => {
    const quota = new LocalMonthlyQuota(new Map([["k", 3]]), nov);
    expect(quota.check("k", 3, Date.UTC(2026, 11, 1) - 1)?.allowed).toBe(false);
    expect(quota.check("k", 3, Date.UTC(2026, 11, 1))).toEqual({
      allowed: true,
      limit: 3,
      used: 0,
      resetsAt: "2027-01-01T00:00:00Z",
    });
  });

  test("a limit of 0 means unlimited", () => {
    expect(new LocalMonthlyQuota(new Map(), nov).check("k", 0, nov)).toBeNull();
  });
});
