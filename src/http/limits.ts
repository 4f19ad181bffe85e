import type { KeyRecord } from "../keys/key-record.ts";
import type { Endpoint } from "../keys/usage.ts";
import type { MonthlyQuota, QuotaDecision } from "../limits/monthly-quota.ts";
import { type RateLimiter, type RatePolicy, ratePolicyFor } from "../limits/rate-limiter.ts";
import { API_ERRORS, errorResponse } from "./errors.ts";

export interface LimitSettings {
  readonly rate: RatePolicy;
  readonly ipQuotaPerMonth: number;
}

export interface Limits {
  readonly settings: LimitSettings;
  readonly rateLimiter: RateLimiter;
  readonly quota: MonthlyQuota;
}

/** Headers for the answer, or the 429 that replaces it. */
export type LimitOutcome =
  | { readonly passed: true; readonly headers: Record<string, string>; readonly quota: QuotaDecision | null }
  | { readonly passed: false; readonly response: Response; readonly reason: "rate_limited" | "quota_exceeded" };

/** Rate limit first, then (IP check only) the monthly quota, which is counted later, on success. */
export function applyLimits(limits: Limits, key: KeyRecord, endpoint: Endpoint, nowMs: number): LimitOutcome {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const rate = limits.rateLimiter.take(key.id, ratePolicyFor(key.ratePerMinute, limits.settings.rate), nowMs);
  if (rate !== null) {
    headers["x-ratelimit-limit"] = String(rate.limit);
    if (!rate.allowed) {
      headers["x-ratelimit-remaining"] = "0";
      headers["x-ratelimit-reset"] = String(rate.retryAfterSeconds);
      return { passed: false, response: errorResponse(API_ERRORS.rateLimited, headers), reason: "rate_limited" };
    }
    headers["x-ratelimit-remaining"] = String(rate.remaining);
  }
  if (endpoint !== "ip") return { passed: true, headers, quota: null };

  const quota = limits.quota.check(key.id, key.ipQuotaPerMonth ?? limits.settings.ipQuotaPerMonth, nowMs);
  if (quota === null) return { passed: true, headers, quota };
  headers["x-quota-limit"] = String(quota.limit);
  headers["x-quota-reset"] = quota.resetsAt;
  if (!quota.allowed) {
    headers["x-quota-remaining"] = "0";
    headers["x-ratelimit-reset"] = String(quota.retryAfterSeconds);
    return { passed: false, response: errorResponse(API_ERRORS.quotaExceeded, headers), reason: "quota_exceeded" };
  }
  return { passed: true, headers, quota };
}

/** X-Quota-Remaining for an answer that did (a 200) or did not (a 400) use up one check. */
export function setQuotaRemaining(headers: Record<string, string>, quota: QuotaDecision | null, counted: boolean): void {
  if (quota !== null) headers["x-quota-remaining"] = String(quota.limit - quota.used - (counted ? 1 : 0));
}
