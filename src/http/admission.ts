import type { ParsedIp } from "../ip/address/parse.ts";
import type { KeyRecord } from "../keys/key-record.ts";
import type { Permission } from "../keys/permissions.ts";
import type { UsageKind, Outcome } from "../keys/usage.ts";
import type { MonthlyQuota, QuotaDecision } from "../limits/monthly-quota.ts";
import { type RateDecision, type RateLimiter, type RatePolicy, ratePolicyFor } from "../limits/rate-limiter.ts";
import { type Authenticator, authenticateRequest } from "./auth.ts";
import { API_ERRORS, type ApiError, errorResponse } from "./errors.ts";
import { JSON_TYPE } from "./json-response.ts";
import { checkKeyUse } from "./key-use.ts";

export interface UsageSink {
  /** `count` requests (or a batch's items) with this outcome; one when left out. */
  record(keyId: string, endpoint: UsageKind, outcome: Outcome, nowMs: number, count?: number): void;
  /** The key was used from this client address (null: none known): its last use, kept until the flush. */
  usedFrom(keyId: string, ip: string | null, nowMs: number): void;
  /** Whether the key's client address is worth looking up now (it was not seen lately). */
  wantsAddress(keyId: string, nowMs: number): boolean;
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
  /** The request's client address as the server resolves it (trusted proxies included); null without one. */
  readonly clientAddress: (request: Request) => ParsedIp | null;
}

/** What a keyed route asks of a request before it looks at its parameters. */
export interface AdmissionRule {
  /** What the key must be allowed to do; a key without it gets the 403. */
  readonly permission: Permission;
  /** The kind of usage the request counts under (its refusals, its 400, its answer). */
  readonly usage: UsageKind;
  /**
   * Units of the monthly IP quota the request will use if answered, known before its parameters: 1 for the IP
   * check. A route that gives it (0 included) may use the quota: an answer of its that used none counts as `ok_unmetered`.
   */
  readonly quotaUnits?: number;
}

/** A route that reads a body: read only once the rate limit took the request's token. */
export interface BodyStep<Body> {
  /** The body, or the 4xx that says what is wrong with it. */
  read(request: Request): Promise<Body | ApiError>;
  /** Units of the monthly IP quota the body will use if answered (a batch's IP items looked up); absent where none ever are. */
  quotaUnits?(body: Body): number;
}

/**
 * Authentication and the rule's permission (with the key's allowed networks), then the rate
 * limit, then (with a body step: the body, read only now) the quota: the contract's order,
 * before any validation. A refusal is the whole answer; otherwise the admission ends the
 * request. Without a body step it answers at once (the GET routes stay synchronous).
 */
export function admit(deps: AdmissionDeps, request: Request, rule: AdmissionRule): Admission<undefined> | Response;
export function admit<Body>(
  deps: AdmissionDeps,
  request: Request,
  rule: AdmissionRule,
  body: BodyStep<Body>,
): Promise<Admission<Body> | Response>;
export function admit<Body>(deps: AdmissionDeps, request: Request, rule: AdmissionRule, body?: BodyStep<Body>) {
  const key = authenticateRequest(deps.authenticator, request.headers.get("authorization"), rule.permission);
  if (!("id" in key)) return refusedAtOnce(key, body);
  const nowMs = deps.now();
  const outside = checkKeyUse(deps, key, request, rule.usage, nowMs);
  if (outside !== null) return refusedAtOnce(outside, body);
  const rate = deps.limits.rateLimiter.take(key.id, ratePolicyFor(key.ratePerMinute, deps.limits.settings.rate), nowMs);
  if (body === undefined)
    return limited(deps, key, rule.usage, nowMs, rate, rule.quotaUnits ?? 0, rule.quotaUnits !== undefined, undefined);
  return admitBody(deps, request, key, rule, nowMs, rate, body);
}

/** A refusal before the rate limit, answered as the route expects: at once, or as a promise for a route with a body. */
function refusedAtOnce(error: ApiError, body: unknown): Response | Promise<Response> {
  return body === undefined ? errorResponse(error) : Promise.resolve(errorResponse(error));
}

async function admitBody<Body>(
  deps: AdmissionDeps,
  request: Request,
  key: KeyRecord,
  rule: AdmissionRule,
  nowMs: number,
  rate: RateDecision | null,
  step: BodyStep<Body>,
): Promise<Admission<Body> | Response> {
  // A body is never read for a request the rate limit refused; its 429 shows the quota as the IP check's would.
  if (rate !== null && !rate.allowed)
    return refused(deps, key, rule.usage, nowMs, applyQuota(deps.limits, key, rate, step.quotaUnits ? 1 : 0, nowMs));
  const body = await step.read(request);
  if (isApiError(body)) {
    deps.usage.record(key.id, rule.usage, "bad_request", nowMs);
    return errorResponse(body, limitHeaders({ rate, quota: null, refusal: null }, 0));
  }
  return limited(deps, key, rule.usage, nowMs, rate, step.quotaUnits?.(body) ?? 0, step.quotaUnits !== undefined, body);
}

/** The quota's verdict on a request the rate limit has seen: refused, or admitted. */
function limited<Body>(
  deps: AdmissionDeps,
  key: KeyRecord,
  usage: UsageKind,
  nowMs: number,
  rate: RateDecision | null,
  quotaUnits: number,
  meterable: boolean,
  body: Body,
): Admission<Body> | Response {
  const limits = applyQuota(deps.limits, key, rate, quotaUnits, nowMs);
  if (limits.refusal !== null)
    return refused(deps, key, limits.refusal === QUOTA_EXCEEDED ? QUOTA_USAGE : usage, nowMs, limits);
  return new Admission(deps, key, usage, meterable, nowMs, limits, body);
}

function refused(deps: AdmissionDeps, key: KeyRecord, usage: UsageKind, nowMs: number, limits: LimitOutcome): Response {
  const refusal = limits.refusal!;
  deps.usage.record(key.id, usage, refusal.outcome, nowMs);
  return errorResponse(refusal.error, limitHeaders(limits, 0));
}

const API_ERROR_VALUES = new Set<unknown>(Object.values(API_ERRORS));

/** Every ApiError is a value of the one table. */
function isApiError(value: unknown): value is ApiError {
  return API_ERROR_VALUES.has(value);
}

/** The quota counts IP checks: a request it refuses counts as one, whatever else it held. */
const QUOTA_USAGE: UsageKind = "ip";

/**
 * An admitted request's bookkeeping: whichever way it ends, its usage is recorded with
 * the outcome and it carries the limit headers; what it looked up counts against the quota.
 */
export class Admission<Body = undefined> {
  constructor(
    private readonly deps: AdmissionDeps,
    readonly key: KeyRecord,
    private readonly usage: UsageKind,
    /** Whether the route's answers may use the quota (the IP check, an assessment, the batch): one that used none is told apart. */
    private readonly meterable: boolean,
    readonly nowMs: number,
    private readonly limits: LimitOutcome,
    /** What the body step read; undefined for a route without one. */
    readonly body: Body,
  ) {}

  /**
   * The 200 with `body`, using up `quotaUnits` of the monthly quota (1 for an IP check's
   * looked-up answer, 0 for anything else). Counted only now that the check succeeded,
   * synchronously from the quota check on, so concurrent requests cannot overshoot.
   */
  answer(quotaUnits: number, body: string): Response {
    this.useQuota(quotaUnits);
    // An IP check's "ok" is what the quota counts (SQLite reads it back at start); one that used none is told apart.
    this.record(this.usage, this.meterable && quotaUnits === 0 ? "ok_unmetered" : "ok");
    return new Response(body, { headers: this.headers(quotaUnits) });
  }

  /** The request's own input is wrong: a 400 that uses up no quota. */
  refuse(error: ApiError): Response {
    this.record(this.usage, "bad_request");
    return errorResponse(error, this.headers(0));
  }

  /** Counts `quotaUnits` answered checks against the month's quota. */
  useQuota(quotaUnits: number): void {
    if (quotaUnits > 0) this.deps.limits.quota.countSuccess(this.key.id, this.nowMs, quotaUnits);
  }

  /** Records `count` requests or items of the request (a batch's items by kind) with this outcome. */
  record(usage: UsageKind, outcome: Outcome, count = 1): void {
    if (count > 0) this.deps.usage.record(this.key.id, usage, outcome, this.nowMs, count);
  }

  /** The limit headers of the answer, `checksUsed` being the quota units it used up. */
  headers(checksUsed: number): Record<string, string> {
    return limitHeaders(this.limits, checksUsed);
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
 * The monthly quota for a request the rate limit has seen, when it would use any: asked
 * even of a request the rate limit refused, so that the 429 shows the quota it would have met.
 */
function applyQuota(
  limits: Limits,
  key: KeyRecord,
  rate: RateDecision | null,
  units: number,
  nowMs: number,
): LimitOutcome {
  const quota =
    units === 0
      ? null
      : limits.quota.check(key.id, key.ipQuotaPerMonth ?? limits.settings.ipQuotaPerMonth, nowMs, units);
  const refusal =
    rate !== null && !rate.allowed ? RATE_LIMITED : quota !== null && !quota.allowed ? QUOTA_EXCEEDED : null;
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
    if (!quota.allowed && (rate === null || rate.allowed))
      headers["x-ratelimit-reset"] = String(quota.retryAfterSeconds);
  }
  return headers;
}
