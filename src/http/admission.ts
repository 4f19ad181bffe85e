import type { KeyRecord } from "../keys/key-record.ts";
import type { Endpoint, Outcome } from "../keys/usage.ts";
import { type Authenticator, authenticateRequest } from "./auth.ts";
import { errorResponse } from "./errors.ts";
import { type LimitOutcome, type Limits, applyLimits } from "./limits.ts";

export interface UsageSink {
  record(keyId: string, endpoint: Endpoint, outcome: Outcome, nowMs: number): void;
}

export interface AdmissionDeps {
  readonly authenticator: Authenticator;
  readonly limits: Limits;
  readonly usage: UsageSink;
  readonly now: () => number;
}

export type Admitted = Omit<Extract<LimitOutcome, { passed: true }>, "passed"> & {
  readonly key: KeyRecord;
  readonly nowMs: number;
};

/** Authentication, then the rate limit, then the quota: the contract's order, before any validation. */
export function admit(deps: AdmissionDeps, request: Request, endpoint: Endpoint): Admitted | Response {
  const key = authenticateRequest(deps.authenticator, request.headers.get("authorization"));
  if (!("id" in key)) return errorResponse(key);
  const nowMs = deps.now();
  const limited = applyLimits(deps.limits, key, endpoint, nowMs);
  if (!limited.passed) {
    deps.usage.record(key.id, endpoint, limited.reason, nowMs);
    return limited.response;
  }
  return { key, nowMs, rate: limited.rate, quota: limited.quota };
}
