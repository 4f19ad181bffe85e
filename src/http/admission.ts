import type { KeyRecord } from "../keys/key-record.ts";
import type { Endpoint, Outcome } from "../keys/usage.ts";
import { type Authenticator, authenticateRequest } from "./auth.ts";
import { type ApiError, errorResponse } from "./errors.ts";
import { type LimitOutcome, type Limits, applyLimits, limitHeaders } from "./limits.ts";

export interface UsageSink {
  record(keyId: string, endpoint: Endpoint, outcome: Outcome, nowMs: number): void;
}

export interface AdmissionDeps {
  readonly authenticator: Authenticator;
  readonly limits: Limits;
  readonly usage: UsageSink;
  readonly now: () => number;
}

/**
 * Authentication, then the rate limit, then the quota: the contract's order, before any
 * validation. A refusal is the whole answer; otherwise the admission ends the request.
 */
export function admit(deps: AdmissionDeps, request: Request, endpoint: Endpoint): Admission | Response {
  const key = authenticateRequest(deps.authenticator, request.headers.get("authorization"));
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

  /** The 200 with `body`. Counted only now that the check succeeded, synchronously from the quota check on, so concurrent requests cannot overshoot. */
  answer(body: string): Response {
    const { deps, key, endpoint, nowMs } = this;
    if (endpoint === "ip") deps.limits.quota.countSuccess(key.id, nowMs);
    deps.usage.record(key.id, endpoint, "ok", nowMs);
    return new Response(body, { headers: limitHeaders(this.limits, endpoint === "ip" ? 1 : 0) });
  }

  /** The request's own input is wrong: a 400 that uses up no quota. */
  refuse(error: ApiError): Response {
    this.deps.usage.record(this.key.id, this.endpoint, "bad_request", this.nowMs);
    return errorResponse(error, limitHeaders(this.limits, 0));
  }
}
