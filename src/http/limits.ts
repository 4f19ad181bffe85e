import type { KeyRecord } from "../keys/key-record.ts";
import type { Endpoint } from "../keys/usage.ts";
import type { MonthlyQuota, QuotaDecision } from "../limits/monthly-quota.ts";
import { type RateDecision, type RateLimiter, type RatePolicy, ratePolicyFor } from "../limits/rate-limiter.ts";
import { API_ERRORS, JSON_HEADERS, JSON_TYPE, errorResponse } from "./errors.ts";

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

/**
 * Rate limit first, then (IP check only) the monthly quota, which is counted later, on
 * success; an IP check's 429 carries the quota headers either way.
 */
export function applyLimits(limits: Limits, key: KeyRecord, endpoint: Endpoint, nowMs: number): LimitOutcome {
  const rate = limits.rateLimiter.take(key.id, ratePolicyFor(key.ratePerMinute, limits.settings.rate), nowMs);
  const quota = endpoint === "ip" ? limits.quota.check(key.id, key.ipQuotaPerMonth ?? limits.settings.ipQuotaPerMonth, nowMs) : null;
  if (rate !== null && !rate.allowed) {
    const headers: Record<string, string> = { "content-type": JSON_TYPE, "x-ratelimit-limit": String(rate.limit), "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(rate.retryAfterSeconds) };
    // The spec: on a 429 "the IP check also sends" the quota headers.
    if (quota !== null) setQuotaHeaders(headers, quota);
    return { passed: false, response: errorResponse(API_ERRORS.rateLimited, headers), reason: "rate_limited" };
  }
  if (quota !== null && !quota.allowed) {
    const headers: Record<string, string> = { "content-type": JSON_TYPE };
    if (rate !== null) {
      headers["x-ratelimit-limit"] = String(rate.limit);
      headers["x-ratelimit-remaining"] = String(rate.remaining);
    }
    setQuotaHeaders(headers, quota);
    headers["x-ratelimit-reset"] = String(quota.retryAfterSeconds);
    return { passed: false, response: errorResponse(API_ERRORS.quotaExceeded, headers), reason: "quota_exceeded" };
  }
  return { passed: true, rate, quota };
}

function setQuotaHeaders(headers: Record<string, string>, quota: QuotaDecision): void {
  headers["x-quota-limit"] = String(quota.limit);
  headers["x-quota-remaining"] = String(Math.max(0, quota.limit - quota.used));
  headers["x-quota-reset"] = quota.resetsAt;
}

/**
 * The headers of an answer that passed the limits. `checksUsed` is 1 when the answer used
 * up a quota check (a 200 of the IP check), else 0.
 *
 * One Headers per shape, refilled for each answer (the plain shape is the error bodies'
 * own, never refilled): building Headers from an object cost more than the rest of an
 * email check, and a Response copies the Headers it is given, so the next refill cannot
 * reach an answer already built (test/http/answer-headers.test.ts checks it).
 */
export function answerHeaders(rate: Allowed<RateDecision> | null, quota: Allowed<QuotaDecision> | null, checksUsed: 0 | 1): Headers {
  if (rate === null) return quota === null ? JSON_HEADERS : QUOTA_ONLY.refill(rate, quota, checksUsed);
  return (quota === null ? RATE_ONLY : RATE_AND_QUOTA).refill(rate, quota, checksUsed);
}

/**
 * One answer shape's Headers with the values last written to it. A header is set only
 * when its value changed: the limits and the reset date rarely do, and each `set` is a
 * call into Bun that costs more than the comparison.
 */
class RefilledHeaders {
  private readonly headers: Headers;
  private rateLimit = -1;
  private rateRemaining = -1;
  private quotaLimit = -1;
  private quotaReset = "";
  private quotaRemaining = -1;

  constructor(names: readonly string[]) {
    this.headers = new Headers([["content-type", JSON_TYPE], ...names.map((name): [string, string] => [name, ""])]);
  }

  refill(rate: Allowed<RateDecision> | null, quota: Allowed<QuotaDecision> | null, checksUsed: 0 | 1): Headers {
    const headers = this.headers;
    if (rate !== null) {
      if (rate.limit !== this.rateLimit) headers.set("x-ratelimit-limit", String((this.rateLimit = rate.limit)));
      if (rate.remaining !== this.rateRemaining) headers.set("x-ratelimit-remaining", String((this.rateRemaining = rate.remaining)));
    }
    if (quota !== null) {
      const remaining = quota.limit - quota.used - checksUsed;
      if (quota.limit !== this.quotaLimit) headers.set("x-quota-limit", String((this.quotaLimit = quota.limit)));
      if (quota.resetsAt !== this.quotaReset) headers.set("x-quota-reset", (this.quotaReset = quota.resetsAt));
      if (remaining !== this.quotaRemaining) headers.set("x-quota-remaining", String((this.quotaRemaining = remaining)));
    }
    return headers;
  }
}

const RATE_NAMES = ["x-ratelimit-limit", "x-ratelimit-remaining"];
const QUOTA_NAMES = ["x-quota-limit", "x-quota-reset", "x-quota-remaining"];
const RATE_ONLY = new RefilledHeaders(RATE_NAMES);
const QUOTA_ONLY = new RefilledHeaders(QUOTA_NAMES);
const RATE_AND_QUOTA = new RefilledHeaders([...RATE_NAMES, ...QUOTA_NAMES]);
