import type { KeyRecord } from "../keys/key-record.ts";
import type { Endpoint } from "../keys/usage.ts";
import type { MonthlyQuota, QuotaDecision } from "../limits/monthly-quota.ts";
import { type RateDecision, type RateLimiter, type RatePolicy, ratePolicyFor } from "../limits/rate-limiter.ts";
import { API_ERRORS, JSON_TYPE, errorResponse } from "./errors.ts";

export interface LimitSettings {
  readonly rate: RatePolicy;
  readonly ipQuotaPerMonth: number;
}

export interface Limits {
  readonly settings: LimitSettings;
  readonly rateLimiter: RateLimiter;
  readonly quota: MonthlyQuota;
}

/** Passed with what the limits said (null where a limit is off), or the 429 that replaces the answer. */
export type LimitOutcome =
  | { readonly passed: true; readonly rate: Allowed<RateDecision> | null; readonly quota: Allowed<QuotaDecision> | null }
  | { readonly passed: false; readonly response: Response; readonly reason: "rate_limited" | "quota_exceeded" };

type Allowed<T> = Extract<T, { allowed: true }>;

/** Rate limit first, then (IP check only) the monthly quota, which is counted later, on success. */
export function applyLimits(limits: Limits, key: KeyRecord, endpoint: Endpoint, nowMs: number): LimitOutcome {
  const rate = limits.rateLimiter.take(key.id, ratePolicyFor(key.ratePerMinute, limits.settings.rate), nowMs);
  if (rate !== null && !rate.allowed) {
    const headers = { "content-type": JSON_TYPE, "x-ratelimit-limit": String(rate.limit), "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(rate.retryAfterSeconds) };
    return { passed: false, response: errorResponse(API_ERRORS.rateLimited, headers), reason: "rate_limited" };
  }
  if (endpoint !== "ip") return { passed: true, rate, quota: null };

  const quota = limits.quota.check(key.id, key.ipQuotaPerMonth ?? limits.settings.ipQuotaPerMonth, nowMs);
  if (quota !== null && !quota.allowed) {
    const headers: Record<string, string> = { "content-type": JSON_TYPE };
    if (rate !== null) {
      headers["x-ratelimit-limit"] = String(rate.limit);
      headers["x-ratelimit-remaining"] = String(rate.remaining);
    }
    headers["x-quota-limit"] = String(quota.limit);
    headers["x-quota-reset"] = quota.resetsAt;
    headers["x-quota-remaining"] = "0";
    headers["x-ratelimit-reset"] = String(quota.retryAfterSeconds);
    return { passed: false, response: errorResponse(API_ERRORS.quotaExceeded, headers), reason: "quota_exceeded" };
  }
  return { passed: true, rate, quota };
}

/**
 * The headers of an answer that passed the limits, each shape built in one literal (this
 * runs for every request). `checksUsed` is 1 when the answer used up a quota check (a 200
 * of the IP check), else 0.
 */
export function answerHeaders(rate: Allowed<RateDecision> | null, quota: Allowed<QuotaDecision> | null, checksUsed: 0 | 1): Record<string, string> {
  if (quota === null) {
    if (rate === null) return { "content-type": JSON_TYPE };
    return { "content-type": JSON_TYPE, "x-ratelimit-limit": String(rate.limit), "x-ratelimit-remaining": String(rate.remaining) };
  }
  const remaining = String(quota.limit - quota.used - checksUsed);
  if (rate === null) return { "content-type": JSON_TYPE, "x-quota-limit": String(quota.limit), "x-quota-reset": quota.resetsAt, "x-quota-remaining": remaining };
  return {
    "content-type": JSON_TYPE,
    "x-ratelimit-limit": String(rate.limit),
    "x-ratelimit-remaining": String(rate.remaining),
    "x-quota-limit": String(quota.limit),
    "x-quota-reset": quota.resetsAt,
    "x-quota-remaining": remaining,
  };
}
