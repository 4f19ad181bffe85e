import { Elysia } from "elysia";
import type { TrafficCounter } from "../../metrics/traffic-counter.ts";
import { type SnapshotHolder, freeListNames } from "../../datasets/snapshot.ts";
import { emailAnswer, emailAnswerJson, explainedEmailAnswerJson } from "../../email/email-answer.ts";
import { type ParsedIp, parseIpAddress } from "../../ip/address/parse.ts";
import { isGlobalUnicast } from "../../ip/address/special-purpose.ts";
import { ipAnswerJson } from "../../ip/answer/ip-answer.ts";
import type { LocalReportView } from "../../ip/verdict/local-reports.ts";
import type { Endpoint } from "../../keys/usage.ts";
import { ratePolicyFor } from "../../limits/rate-limiter.ts";
import type { BatchItemMetrics } from "../../metrics/batch-items.ts";
import { type AdmissionDeps, type LimitOutcome, limitHeaders } from "../admission.ts";
import { authenticateRequest } from "../auth.ts";
import { API_ERRORS, type ApiError, errorResponse } from "../errors.ts";
import { jsonObjectOf, readBodyText } from "../request-body.ts";
import { wantsExplanation } from "./ip.ts";

export const MAX_BATCH_BYTES = 1024 * 1024;
export const MAX_BATCH_ITEMS = 1_000;

export interface BatchDeps extends AdmissionDeps {
  readonly snapshots: SnapshotHolder;
  readonly traffic: TrafficCounter;
  /** The items' counts for /metrics. */
  readonly batchItems: BatchItemMetrics;
  readonly localReports: LocalReportView;
}

/** `POST /v1/check/batch`. The route reads its body itself, with its own limit: Elysia parses none. */
export function batchCheck(deps: BatchDeps) {
  return new Elysia().post(
    "/v1/check/batch",
    ({ request }) => {
      deps.traffic.served++;
      return checkBatch(deps, request);
    },
    { parse: "none" },
  );
}

interface Batch {
  readonly emails: readonly unknown[];
  readonly ips: readonly unknown[];
}

/**
 * `POST /v1/check/batch`: `{"emails": […], "ips": […]}`, answered in input order, each item
 * exactly the GET endpoint's answer or `{"input", "error", "message"}`. Authentication, then
 * one rate-limit token for the whole request, then the body, then the quota for every IP item
 * at once: a batch that does not fit is refused whole. The IP items looked up (valid global
 * unicast addresses) use up the quota; the private answer uses none, as on the GET.
 */
export async function checkBatch(deps: BatchDeps, request: Request): Promise<Response> {
  const key = authenticateRequest(deps.authenticator, request.headers.get("authorization"), "check");
  if (!("id" in key)) return errorResponse(key);
  // Read before the rate limit so that a refusal is counted against the kind of check it held; refused only after it.
  const body = await readBodyText(request, MAX_BATCH_BYTES);
  const batch = typeof body === "string" ? parseBatch(body) : body.problem === "too_large" ? API_ERRORS.batchTooLarge : API_ERRORS.invalidBatch;
  const endpoint: Endpoint = "ips" in batch && batch.ips.length > 0 ? "ip" : "email";
  const nowMs = deps.now();
  const rate = deps.limits.rateLimiter.take(key.id, ratePolicyFor(key.ratePerMinute, deps.limits.settings.rate), nowMs);
  // Each IP item that will be looked up (a valid global unicast address) is a unit of the
  // quota, as its GET would be. Asked before a rate-limit refusal too, so that it shows the
  // quota the batch would have met.
  const ips = "ips" in batch ? batch.ips.map((value) => (typeof value === "string" ? parseIpAddress(value) : null)) : [];
  const units = ips.reduce((n, ip) => (ip !== null && isGlobalUnicast(ip) ? n + 1 : n), 0);
  const quota = units === 0 ? null : deps.limits.quota.check(key.id, key.ipQuotaPerMonth ?? deps.limits.settings.ipQuotaPerMonth, nowMs, units);
  const limits: LimitOutcome = { rate, quota, refusal: null };
  if (rate !== null && !rate.allowed) {
    deps.usage.record(key.id, endpoint, "rate_limited", nowMs);
    return errorResponse(API_ERRORS.rateLimited, limitHeaders(limits, 0));
  }
  if (!("ips" in batch)) {
    deps.usage.record(key.id, endpoint, "bad_request", nowMs);
    return errorResponse(batch, limitHeaders(limits, 0));
  }
  if (quota !== null && !quota.allowed) {
    deps.usage.record(key.id, "ip", "quota_exceeded", nowMs);
    return errorResponse(API_ERRORS.quotaExceeded, limitHeaders(limits, 0));
  }

  const snapshot = deps.snapshots.current();
  const explained = wantsExplanation(request.url);
  const explainWith = explained ? snapshot.sources : null;
  const free = explained ? freeListNames(snapshot) : null;
  let emailsAnswered = 0;
  let ipsAnswered = 0;
  const emails = batch.emails.map((value) => {
    const answer = typeof value === "string" ? emailAnswer(snapshot.email, value) : null;
    if (answer === null) return itemError(value, API_ERRORS.invalidEmail);
    emailsAnswered++;
    return free === null ? emailAnswerJson(answer) : explainedEmailAnswerJson(snapshot.email, answer, free);
  });
  const ipAnswers = ips.map((ip: ParsedIp | null, i) => {
    if (ip === null) return itemError(batch.ips[i], API_ERRORS.invalidIp);
    ipsAnswered++;
    return ipAnswerJson(snapshot.ip, ip, explainWith, deps.localReports);
  });

  if (units > 0) deps.limits.quota.countSuccess(key.id, nowMs, units);
  const record = (kind: Endpoint, outcome: "ok" | "ok_unmetered" | "bad_request", count: number) => {
    if (count > 0) deps.usage.record(key.id, kind, outcome, nowMs, count);
  };
  record("email", "ok", emailsAnswered);
  record("email", "bad_request", emails.length - emailsAnswered);
  // As the GET counts them: "ok" used a quota unit, "ok_unmetered" (an address outside global unicast) none.
  record("ip", "ok", units);
  record("ip", "ok_unmetered", ipsAnswered - units);
  record("ip", "bad_request", ips.length - ipsAnswered);
  const metrics = deps.batchItems;
  metrics.emailsAnswered += emailsAnswered;
  metrics.emailsInvalid += emails.length - emailsAnswered;
  metrics.ipsAnswered += ipsAnswered;
  metrics.ipsInvalid += ips.length - ipsAnswered;
  return new Response(`{"emails":[${emails.join(",")}],"ips":[${ipAnswers.join(",")}]}`, { headers: limitHeaders(limits, units) });
}

/** The body as a batch, or the error that says what is wrong with it. */
function parseBatch(text: string): Batch | ApiError {
  const fields = jsonObjectOf(text);
  if (fields === null) return API_ERRORS.invalidBatch;
  // An unknown field is most likely a misspelt one ("ip", "email"): refused rather than silently answered with nothing.
  if (Object.keys(fields).some((k) => k !== "emails" && k !== "ips")) return API_ERRORS.invalidBatch;
  const emails = fields.emails ?? [];
  const ips = fields.ips ?? [];
  if (!Array.isArray(emails) || !Array.isArray(ips)) return API_ERRORS.invalidBatch;
  if (emails.length + ips.length > MAX_BATCH_ITEMS) return API_ERRORS.tooManyItems;
  return { emails, ips };
}

function itemError(input: unknown, error: ApiError): string {
  return JSON.stringify({ input, error: error.error, message: error.message });
}
