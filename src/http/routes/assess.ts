import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { type AssessRequest, type AssessValues, assessValues, withMailEvidence } from "../../assess/assess-values.ts";
import { assessmentFacts } from "../../assess/assessment-facts.ts";
import { assessmentJson } from "../../assess/assessment-json.ts";
import { AssessmentSchema } from "../../assess/assessment-schema.ts";
import { assess } from "../../assess/assessment.ts";
import type { CompiledPolicy } from "../../assess/compiled-policy.ts";
import type { PolicyCounts } from "../../assess/policy-counts.ts";
import { Answers } from "../../checks/answers.ts";
import type { Snapshot, SnapshotHolder } from "../../datasets/snapshot.ts";
import type { MailEvidence } from "../../email/mail-evidence.ts";
import type { LocalReportView } from "../../ip/verdict/local-reports.ts";
import type { TrafficCounter } from "../../metrics/traffic-counter.ts";
import { jsonObjectOf, readBodyText } from "../../requests/request-body.ts";
import { type Admission, type AdmissionDeps, type AdmissionRule, type BodyStep, admit } from "../admission.ts";
import type { ClientResolver, Listening } from "../client-info.ts";
import { API_ERRORS, type ApiError } from "../errors.ts";
import { ASSESS_EXAMPLES } from "../openapi-examples.ts";
import {
  type PathOperations,
  RATE_HEADERS,
  errorExample,
  errorSchema,
  integerHeader,
  jsonContent,
  ref,
  tooManyRequests,
} from "../openapi-parts.ts";
import { type QueryValue, flagParam, queryParam, wantsExplanation } from "../query.ts";
import { synchronous } from "../synchronous.ts";

export interface AssessDeps extends AdmissionDeps {
  readonly snapshots: SnapshotHolder;
  /** Tells the caller's own address, assessed when the request asks for it (caller_ip). */
  readonly client: Pick<ClientResolver, "address">;
  readonly traffic: TrafficCounter;
  readonly localReports: LocalReportView;
  /** The policy in force (the operator's rules, kept in step with the store). */
  readonly policy: { readonly current: CompiledPolicy };
  readonly policyCounts: PolicyCounts;
  /** DNS evidence for domains no list decides, as the email check consults it; null when no resolver is configured. */
  readonly mail: MailEvidence | null;
}

/** `GET /v1/assess?email=&ip=&event=` and `POST /v1/assess` with the same as a JSON body. Elysia parses no body. */
export function assessRoute(deps: AssessDeps, listening: Listening) {
  return new Elysia()
    .get(
      "/v1/assess",
      synchronous(({ request }: { request: Request }) => {
        deps.traffic.served++;
        return assessFromQuery(deps, request, listening);
      }),
    )
    .post(
      "/v1/assess",
      ({ request }) => {
        deps.traffic.served++;
        return assessFromBody(deps, request, listening);
      },
      { parse: "none" },
    );
}

/** A key with `check`; an assessment that looks an address up uses one unit of the quota, checked before the values. */
const WITH_ADDRESS: AdmissionRule = { permission: "check", usage: "assess", quotaUnits: 1 };
const EMAIL_ONLY: AdmissionRule = { permission: "check", usage: "assess", quotaUnits: 0 };

/** What a request sends: the values as given, and whether it asks for its own address. */
interface Sent extends AssessRequest {
  readonly callerIp: boolean;
}

function assessFromQuery(deps: AssessDeps, request: Request, listening: Listening): Response | Promise<Response> {
  const url = request.url;
  const callerIp = flagParam(url, "caller_ip");
  const ip = queryParam(url, "ip");
  const admission = admit(deps, request, ip !== "absent" || callerIp ? WITH_ADDRESS : EMAIL_ONLY);
  if (admission instanceof Response) return admission;
  const email = queryParam(url, "email");
  const event = queryParam(url, "event");
  // A parameter given twice or with brackets is malformed: refused as the value's own error.
  if (email === "repeated" || email === "malformed") return admission.refuse(API_ERRORS.invalidEmail);
  if (ip === "repeated" || ip === "malformed") return admission.refuse(API_ERRORS.invalidIp);
  if (event === "repeated" || event === "malformed") return admission.refuse(API_ERRORS.invalidEvent);
  const sent = { email: sentValue(email), ip: sentValue(ip), event: sentValue(event), callerIp };
  return answered(deps, request, listening, admission, sent, wantsExplanation(url));
}

const sentValue = (v: QueryValue) => (typeof v === "object" ? v.value : undefined);

/** An assessment's body: a few short values. */
const MAX_ASSESS_BYTES = 16 * 1024;
const BODY_KEYS = new Set(["email", "ip", "event", "caller_ip"]);

const ASSESS_BODY = {
  async read(request: Request): Promise<Sent | ApiError> {
    const text = await readBodyText(request, MAX_ASSESS_BYTES);
    if (typeof text !== "string")
      return text.problem === "too_large" ? API_ERRORS.assessTooLarge : API_ERRORS.invalidAssess;
    const fields = jsonObjectOf(text);
    // An unknown field is most likely a misspelt one ("emails", "ip_address"): refused rather than assessed without it.
    if (fields === null || Object.keys(fields).some((k) => !BODY_KEYS.has(k))) return API_ERRORS.invalidAssess;
    if (fields.caller_ip !== undefined && typeof fields.caller_ip !== "boolean") return API_ERRORS.invalidAssess;
    return { email: fields.email, ip: fields.ip, event: fields.event, callerIp: fields.caller_ip === true };
  },
  quotaUnits: (sent: Sent) => (sent.callerIp || (sent.ip !== undefined && sent.ip !== null) ? 1 : 0),
} satisfies BodyStep<Sent>;

async function assessFromBody(deps: AssessDeps, request: Request, listening: Listening): Promise<Response> {
  const admission = await admit(deps, request, EMAIL_ONLY, ASSESS_BODY);
  if (admission instanceof Response) return admission;
  return answered(deps, request, listening, admission, admission.body, wantsExplanation(request.url));
}

/**
 * The assessment of admitted values, or the 400 of the first that is wrong; counted for the shadow figures.
 * A Response at once, unless DNS evidence must look the email's domain up: then within its budget.
 */
function answered(
  deps: AssessDeps,
  request: Request,
  listening: Listening,
  admission: Admission<unknown>,
  sent: Sent,
  explain: boolean,
): Response | Promise<Response> {
  if (sent.callerIp && sent.ip !== undefined && sent.ip !== null) return admission.refuse(API_ERRORS.callerAndIp);
  const snapshot = deps.snapshots.current();
  const answers = new Answers(snapshot, explain, deps.localReports, deps.mail);
  const ip = sent.callerIp ? deps.client.address(request, listening()) : sent.ip;
  if (sent.callerIp && ip === null) return admission.refuse(API_ERRORS.invalidIp);
  const values = assessValues(answers, { email: sent.email, ip, event: sent.event });
  if ("error" in values) return admission.refuse(ERRORS_BY_CODE[values.error]);
  const checked = withMailEvidence(answers, values);
  return checked instanceof Promise
    ? checked.then((v) => decided(deps, snapshot, answers, admission, v))
    : decided(deps, snapshot, answers, admission, checked);
}

function decided(
  deps: AssessDeps,
  snapshot: Snapshot,
  answers: Answers,
  admission: Admission<unknown>,
  values: AssessValues,
): Response {
  const policy = deps.policy.current;
  const assessment = assess(policy, assessmentFacts(snapshot, values.email, values.ip, values.event));
  deps.policyCounts.count(assessment, policy, admission.nowMs);
  const json = assessmentJson(
    assessment,
    values.email === null ? null : answers.emailJson(values.email),
    values.ip === null ? null : answers.ipJson(values.ip),
    answers.explain,
  );
  // An address looked up (global unicast) is a unit of the quota, as on the IP check; the private answer is none.
  return admission.answer(values.ip?.facts ? 1 : 0, json);
}

const ERRORS_BY_CODE: Readonly<Record<string, ApiError>> = {
  missing_parameter: API_ERRORS.noAssessValue,
  invalid_event: API_ERRORS.invalidEvent,
  invalid_email: API_ERRORS.invalidEmail,
  invalid_ip: API_ERRORS.invalidIp,
};

export const AssessRequestSchema = Type.Object(
  {
    email: Type.Optional(Type.String({ description: "As GET /v1/check takes it." })),
    ip: Type.Optional(Type.String({ description: "As GET /v1/ip-reputation-check takes it." })),
    caller_ip: Type.Optional(Type.Boolean({ description: "true: assess the caller's own address (instead of `ip`)." })),
    event: Type.Optional(Type.String({ description: "`signup`, `login`, `payment` or your own label." })),
  },
  { $id: "AssessRequest", additionalProperties: false },
);

/** The quota headers of an assessment: there when it gave an address, as on the IP check. */
const QUOTA_WITH_ADDRESS = {
  "X-Quota-Limit": { ...integerHeader("As on the IP check; only when the request gave an address."), required: false },
  "X-Quota-Remaining": {
    ...integerHeader("As on the IP check; only when the request gave an address."),
    required: false,
  },
  "X-Quota-Reset": {
    description: "As on the IP check; only when the request gave an address.",
    required: false,
    schema: { type: "string", format: "date-time" },
  },
};
const VALUE_ERRORS = [API_ERRORS.noAssessValue, API_ERRORS.invalidEmail, API_ERRORS.invalidIp, API_ERRORS.invalidEvent];

/** One of the two operations: GET with its query, POST with its body; the same answers. */
function assessOperation(method: "get" | "post") {
  const get = method === "get";
  const query = (name: string, description: string, schema: object, example?: string) => ({
    name,
    in: "query",
    required: false,
    description,
    schema,
    ...(example ? { example } : {}),
  });
  return {
    tags: ["checks"],
    operationId: get ? "assess" : "assessPost",
    summary: "One decision on a sign-up, a login or a payment: allow, challenge or block, with its reasons",
    description:
      "From the email answer and the IP answer as the two checks give them, the decision of the policy in force " +
      "(docs/assess.md): the first enforcing operator rule that matches, else the default policy's score " +
      "(challenge from 50, block from 85). A `check` key; one rate-limit token; one unit of the monthly IP quota " +
      "when it looks an address up (a global unicast one), the quota checked before the values.",
    security: [{ apiKey: [] }],
    parameters: [
      ...(get
        ? [
            query(
              "email",
              "The address, as GET /v1/check takes it.",
              { type: "string", maxLength: 254 },
              "someone@mailinator.com",
            ),
            query(
              "ip",
              "The IP address, as GET /v1/ip-reputation-check takes it.",
              { type: "string", maxLength: 64 },
              "8.8.8.8",
            ),
            query("caller_ip", "`caller_ip`, `=1`, `=true` or `=yes`: assess the caller's own address instead.", {
              type: "string",
            }),
            query(
              "event",
              "What is decided: `signup`, `login`, `payment` or your own label (compared in lower case); rules may name it.",
              { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$" },
              "signup",
            ),
          ]
        : []),
      query(
        "explain",
        "`explain`, `=1`, `=true` or `=yes`: the two answers as their checks' `explain=1` gives them, and `shadow`, " +
          "the shadow rules that would have decided.",
        { type: "string" },
      ),
    ],
    ...(get
      ? {}
      : {
          requestBody: {
            required: true,
            description: "At most 16 KiB of JSON.",
            content: jsonContent(AssessRequestSchema, {
              signup: { summary: "A sign-up's address and IP", value: ASSESS_EXAMPLES.request },
            }),
          },
        }),
    responses: {
      "200": {
        description: "The decision, its score and reasons, the rule that decided, the policy, and the two answers.",
        headers: { ...RATE_HEADERS, ...QUOTA_WITH_ADDRESS },
        content: jsonContent(AssessmentSchema, {
          signup: {
            summary: get
              ? "GET /v1/assess?email=someone@mailinator.com&ip=8.8.8.8&event=signup"
              : "POST /v1/assess with the request's example",
            value: ASSESS_EXAMPLES.answer,
          },
        }),
      },
      "400": {
        description:
          "Neither an email nor an IP address, one that is not valid, or an event label that is none" +
          (get ? "." : "; or a body that is not such JSON."),
        headers: RATE_HEADERS,
        content: jsonContent(errorSchema(get ? VALUE_ERRORS : [...VALUE_ERRORS, API_ERRORS.invalidAssess]), {
          missing_parameter: errorExample(API_ERRORS.noAssessValue, get ? "GET /v1/assess" : '{"event": "signup"}'),
        }),
      },
      "401": ref("responses", "Unauthorized"),
      "403": ref("responses", "Forbidden"),
      ...(get
        ? {}
        : {
            "413": {
              description: "The body is over 16 KiB.",
              headers: RATE_HEADERS,
              content: jsonContent(errorSchema([API_ERRORS.assessTooLarge]), {
                body_too_large: errorExample(API_ERRORS.assessTooLarge, "A body over 16 KiB"),
              }),
            },
          }),
      "429": tooManyRequests(
        "The key's rate limit is used up, or (for a request that gives an address) its monthly quota; nothing was answered or counted.",
        { example: "An address beyond the key's monthly quota", headers: QUOTA_WITH_ADDRESS },
      ),
      "500": ref("responses", "InternalError"),
    },
  };
}

/** `GET` and `POST /v1/assess` as the OpenAPI document describes them. */
export const ASSESS_OPERATIONS = {
  "/v1/assess": { get: assessOperation("get"), post: assessOperation("post") },
} satisfies PathOperations;
