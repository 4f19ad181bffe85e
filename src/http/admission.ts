import type { KeyRecord } from "../keys/key-record.ts";
import type { Endpoint, Outcome } from "../keys/usage.ts";
import type { MonthlyQuota, QuotaDecision } from "../limits/monthly-quota.ts";
import { type RateDecision, type RateLimiter, type RatePolicy, ratePolicyFor } from "../limits/rate-limiter.ts";
import { type Authenticator, authenticateRequest } from "./auth.ts";
import { API_ERRORS, type ApiError, JSON_TYPE, errorResponse } from "./errors.ts";

export interface UsageSink {
  /** `count` requests (or a batch's items) with this outcome; one when left out. */
  record(keyId: string, endpoint: Endpoint, outcome: Outcome, nowMs: number, count?: number): void;
}

export interface LimitSettings {
  readonly rate: RatePolicy;
  readonly ipQuotaPerMonth: number;
}

export interface Limits {
  readonly settings: LimitSettings;
  readonly rateLimiter: RateLimiter;
  readonly quota: MonthlyQuota;
}

export interface AdmissionDeps {
  readonly authenticator: Authenticator;
  readonly limits: Limits;
  readonly usage: UsageSink;
  readonly now: () => number;
}

/**
 * Authentication and the `check` permission, then the rate limit, then the quota: the contract's order, before any
 * validation. A refusal is the whole answer; otherwise the admission ends the request.
 */
export function admit(deps: AdmissionDeps, request: Request, endpoint: Endpoint): Admission | Response {
  const key = authenticateRequest(deps.authenticator, request.headers.get("authorization"), "check");
  if (!("id" in key)) return errorResponse(key);
  const nowMs = deps.now();
  const limits = applyLimits(deps.limits, key, endpoint, nowMs);
  if (limits.refusal !== null) {
    deps.usage.record(key.id, endpoint, limits.refusal.outcome, nowMs);
    return errorResponse(limits.refusal.error, limitHeaders(limits, 0));
  }
  return new Admission(deps, key, endpoint, nowMs, limits);
}

/**
 * An admitted request's bookkeeping: whichever way it ends, its usage is recorded with
 * the outcome and it carries the limit headers; an IP check's answer counts against the quota.
 */
export class Admission {
  constructor(
    private readonly deps: AdmissionDeps,
    private readonly key: KeyRecord,
    private readonly endpoint: Endpoint,
    private readonly nowMs: number,
    private readonly limits: LimitOutcome,
  ) {}

  /**
   * The 200 with `body`, using up `quotaUnits` of the monthly quota (1 for an IP check's
   * looked-up answer, 0 for anything else). Counted only now that the check succeeded,
   * synchronously from the quota check on, so concurrent requests cannot overshoot.
   */
  answer(quotaUnits: 0 | 1, body: string): Response {
    const { deps, key, endpoint, nowMs } = this;
    if (quotaUnits === 1) deps.limits.quota.countSuccess(key.id, nowMs);
    // An IP check's "ok" is what the quota counts (SQLite reads it back at start); one that used none is told apart.
    deps.usage.record(key.id, endpoint, endpoint === "ip" && quotaUnits === 0 ? "ok_unmetered" : "ok", nowMs);
    return new Response(body, { headers: limitHeaders(this.limits, quotaUnits) });
  }

  /** The request's own input is wrong: a 400 that uses up no quota. */
  refuse(error: ApiError): Response {
    this.deps.usage.record(this.key.id, this.endpoint, "bad_request", this.nowMs);
    return errorResponse(error, limitHeaders(this.limits, 0));
  }
}

export interface Refusal {
  readonly error: ApiError;
  readonly outcome: "rate_limited" | "quota_exceeded";
}

const RATE_LIMITED: Refusal = { error: API_ERRORS.rateLimited, outcome: "rate_limited" };
const QUOTA_EXCEEDED: Refusal = { error: API_ERRORS.quotaExceeded, outcome: "quota_exceeded" };

/** What the limits said of a request: null where a limit is off; `refusal` when one refused it. */
export interface LimitOutcome {
  readonly rate: RateDecision | null;
  readonly quota: QuotaDecision | null;
  readonly refusal: Refusal | null;
}

/**
 * Rate limit first, then (IP check only) the monthly quota, which is counted later, on
 * success: a request the rate limit refuses still shows the quota it would have met.
 */
function applyLimits(limits: Limits, key: KeyRecord, endpoint: Endpoint, nowMs: number): LimitOutcome {
  const rate = limits.rateLimiter.take(key.id, ratePolicyFor(key.ratePerMinute, limits.settings.rate), nowMs);
  const quota = endpoint === "ip" ? limits.quota.check(key.id, key.ipQuotaPerMonth ?? limits.settings.ipQuotaPerMonth, nowMs) : null;
  const refusal = rate !== null && !rate.allowed ? RATE_LIMITED : quota !== null && !quota.allowed ? QUOTA_EXCEEDED : null;
  return { rate, quota, refusal };
}

/**
 * The headers of every answer after authentication. `checksUsed` is the quota checks the
 * answer used up: 1 for a 200 of the IP check, a batch's answered IP items. On a 429, X-RateLimit-Reset says in
 * how many seconds the limit that refused will take a request again.
 */
export function limitHeaders({ rate, quota }: LimitOutcome, checksUsed: number): Record<string, string> {
  const headers: Record<string, string> = { "content-type": JSON_TYPE };
  if (rate !== null) {
    headers["x-ratelimit-limit"] = String(rate.limit);
    headers["x-ratelimit-remaining"] = rate.allowed ? String(rate.remaining) : "0";
    if (!rate.allowed) headers["x-ratelimit-reset"] = String(rate.retryAfterSeconds);
  }
  if (quota !== null) {
    headers["x-quota-limit"] = String(quota.limit);
    headers["x-quota-remaining"] = String(Math.max(0, quota.limit - quota.used - checksUsed));
    headers["x-quota-reset"] = quota.resetsAt;
    if (!quota.allowed && (rate === null || rate.allowed)) headers["x-ratelimit-reset"] = String(quota.retryAfterSeconds);
  }
  return headers;
}
