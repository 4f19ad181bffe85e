/** The one place that turns failures into `{error, message[, retry_after]}` responses. */

import { CHECK_ERRORS } from "../checks/item-error.ts";
import { RETRY_AFTER_SECONDS, type StorageUnavailable } from "../faults/storage-fault.ts";
import { JSON_HEADERS } from "./json-response.ts";

export interface ApiError {
  readonly status: number;
  readonly error: string;
  readonly message: string;
}

const define = (status: number, error: string, message: string): ApiError => Object.freeze({ status, error, message });

export const API_ERRORS = Object.freeze({
  missingKey: define(401, "No API key provided", "Please include your API key in the Authorization header"),
  unknownKey: define(401, "Invalid API key", "The provided API key is not valid"),
  revokedKey: define(401, "API key revoked", "This API key has been revoked. Please generate a new one."),
  missingEmail: define(400, "missing_parameter", "The 'email' parameter is required"),
  invalidEmail: CHECK_ERRORS.invalidEmail,
  invalidIp: CHECK_ERRORS.invalidIp,
  noAssessValue: CHECK_ERRORS.noValue,
  invalidEvent: CHECK_ERRORS.invalidEvent,
  invalidAssess: define(
    400,
    "invalid_body",
    'The body must be JSON: {"email": "...", "ip": "...", "event": "signup"}, one value or both; "caller_ip": true ' +
      "assesses the caller's own address",
  ),
  assessTooLarge: define(
    413,
    "body_too_large",
    "The body is over 16 KiB; an assessment takes one email and one IP address",
  ),
  callerAndIp: define(400, "invalid_ip", "Give ip or caller_ip, not both"),
  invalidBatch: define(400, "invalid_body", 'The body must be JSON of the form {"emails": ["..."], "ips": ["..."]}'),
  batchTooLarge: define(413, "body_too_large", "The body is over 1 MiB; send at most 1,000 items per batch"),
  tooManyItems: define(400, "too_many_items", "A batch holds at most 1,000 items, emails and IPs together"),
  forbidden: define(
    403,
    "forbidden",
    "This API key lacks the permission this endpoint needs; an operator can create a key with it (riskcheck keys " +
      "create --name NAME --permissions check,report)",
  ),
  invalidReports: define(
    400,
    "invalid_body",
    'The body must be JSON: one report {"ip": "...", "category": "bot|probe|rate|attack|crawler", "comment": "..."} or {"reports": [...]}',
  ),
  reportsTooLarge: define(413, "body_too_large", "The body is over 1 MiB; send at most 1,000 reports per request"),
  tooManyReports: define(400, "too_many_items", "A request holds at most 1,000 reports"),
  forbiddenManage: define(
    403,
    "forbidden",
    "This API key may not manage override lines or assessment rules; an operator can create a key that may " +
      "(riskcheck keys create --name NAME --permissions manage)",
  ),
  invalidOverride: define(
    400,
    "invalid_body",
    'The body must be JSON: {"kind": "ip" or "email", "target": "...", "action": "allow" or "deny", "reason": "...", ' +
      '"until": "YYYY-MM-DD" (optional)}',
  ),
  unknownOverrideKind: define(
    400,
    "unknown_kind",
    "kind must be ip (an address, a CIDR range or an AS number) or email (a domain)",
  ),
  invalidOverrideAction: define(400, "invalid_action", "action must be allow or deny"),
  overrideNotFound: define(404, "override_not_found", "No override line has this id; GET /v1/overrides lists them"),
  invalidPolicyBody: define(
    400,
    "invalid_body",
    'The body must be JSON: a rule set {"rules": [...]} (PUT /v1/policy), a rule (POST /v1/policy/rules) or {"mode": ' +
      '"enforce" or "shadow", "position": N} (PATCH)',
  ),
  policyTooLarge: define(413, "body_too_large", "The body is over 2 MiB; a rule set is at most 1 MiB as JSON"),
  ruleNotFound: define(404, "rule_not_found", "No rule has this id; GET /v1/policy lists them"),
  policyBusy: define(
    503,
    "service_unavailable",
    "The rules kept changing while this edit was made; nothing of it was stored: send it again",
  ),
  rateLimited: define(429, "rate_limit_exceeded", "Rate limit exceeded. Please try again later."),
  quotaExceeded: define(
    429,
    "quota_exceeded",
    "Monthly quota exceeded. Please upgrade your plan or wait until next month.",
  ),
  metricsTokenRequired: define(
    401,
    "unauthorized",
    "Metrics need the token set in RISKCHECK_METRICS_TOKEN: Authorization: Bearer <token>",
  ),
  notFound: define(404, "not_found", "No such endpoint; see the API reference in docs/api.md"),
  internal: define(500, "internal_error", "The server failed to answer this request; the details are in its log"),
});

/** 429 bodies carry retry_after in seconds: fixed by the spec, whatever the actual wait. */
const RETRY_AFTER: Partial<Record<string, number>> = { rate_limit_exceeded: 60, quota_exceeded: 86400 };

const bodies = new Map<ApiError, string>();
for (const e of Object.values(API_ERRORS)) {
  const retry = RETRY_AFTER[e.error];
  bodies.set(
    e,
    JSON.stringify(
      retry === undefined
        ? { error: e.error, message: e.message }
        : { error: e.error, message: e.message, retry_after: retry },
    ),
  );
}

/**
 * `headers`, when given, carry the content type already. An error made for one request (a message naming its client)
 * is serialised here.
 */
export function errorResponse(e: ApiError, headers: Readonly<Record<string, string>> = JSON_HEADERS): Response {
  return new Response(bodies.get(e) ?? JSON.stringify({ error: e.error, message: e.message }), {
    status: e.status,
    headers,
  });
}

/** What each fault's sentence says the database is. */
const DATABASE_IS = {
  locked: "locked by another process",
  unreachable: "not reachable",
  full: "out of disk space",
  failing: "failing",
} as const;

/**
 * What a 503 says when the database failed: whether anything happened — for a read, nothing
 * changed; for a write, nothing was changed, or, when the database stopped answering as the
 * change was being committed, that it may have been: check before sending it again.
 */
export function storageFaultText(fault: StorageUnavailable, method: string): string {
  const is = `The database is ${DATABASE_IS[fault.reason]}`;
  const wait = RETRY_AFTER_SECONDS[fault.reason];
  if (method === "GET" || method === "HEAD") return `${is}: this could not be read; try again after ${wait} seconds`;
  if (fault.outcome === "unknown")
    return (
      `${is}: it stopped answering while this change was being committed, so the change may or may not have been ` +
      `made; look before sending it again, after ${wait} seconds`
    );
  return `${is}: nothing of this request was changed; send it again after ${wait} seconds`;
}

/** The database's 503: `outcome` says whether the request's change was surely not made (`not_done`) or may have been (`unknown`). */
export function storageFaultResponse(
  fault: StorageUnavailable,
  method: string,
  headers: Readonly<Record<string, string>> = JSON_HEADERS,
): Response {
  const body = {
    error: "service_unavailable",
    reason: fault.reason,
    outcome: fault.outcome,
    message: storageFaultText(fault, method),
  };
  return new Response(JSON.stringify(method === "GET" || method === "HEAD" ? { ...body, outcome: "not_done" } : body), {
    status: 503,
    headers: { ...headers, "retry-after": String(RETRY_AFTER_SECONDS[fault.reason]) },
  });
}
