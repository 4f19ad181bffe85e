import { Elysia } from "elysia";
import type { TrafficCounter } from "../../metrics/traffic-counter.ts";
import { type AssessRequest, type AssessValues, assessValues, withMailEvidence } from "../../assess/assess-values.ts";
import { assessmentFacts } from "../../assess/assessment-facts.ts";
import { assessmentJson } from "../../assess/assessment-json.ts";
import { AssessmentSchema } from "../../assess/assessment-schema.ts";
import { assess } from "../../assess/assessment.ts";
import type { CompiledPolicy } from "../../assess/compiled-policy.ts";
import type { PolicyCounts } from "../../assess/policy-counts.ts";
import { Answers, ipItem } from "../../checks/answers.ts";
import { CHECK_ERRORS, type ItemError, itemError } from "../../checks/item-error.ts";
import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { type ParsedIp, parseIpAddress } from "../../ip/address/parse.ts";
import { isGlobalUnicast } from "../../ip/address/special-purpose.ts";
import type { LocalReportView } from "../../ip/verdict/local-reports.ts";
import type { BatchItemMetrics } from "../../metrics/batch-items.ts";
import { type AdmissionDeps, type AdmissionRule, type BodyStep, admit } from "../admission.ts";
import { MAX_BATCH_BYTES, MAX_BATCH_ITEMS } from "../batch-limits.ts";
import { API_ERRORS, type ApiError } from "../errors.ts";
import { jsonObjectOf, readBodyText } from "../../requests/request-body.ts";
import { wantsExplanation } from "../query.ts";
import { Type } from "@sinclair/typebox";
import { EmailAnswerSchema } from "../../email/email-answer-schema.ts";
import { IpAnswerSchema } from "../../ip/answer/ip-answer-schema.ts";
import { OneOf, StringEnum } from "../../schema/json-schema.ts";
import {
  type PathOperations,
  QUOTA_HEADERS,
  RATE_HEADERS,
  errorExample,
  errorSchema,
  jsonContent,
  ref,
  tooManyRequests,
} from "../openapi-parts.ts";
import { BATCH_EXAMPLES } from "../openapi-examples.ts";
import type { MailEvidence } from "../../email/mail-evidence.ts";

export interface BatchDeps extends AdmissionDeps {
  readonly snapshots: SnapshotHolder;
  readonly traffic: TrafficCounter;
  /** The items' counts for /metrics. */
  readonly batchItems: BatchItemMetrics;
  readonly localReports: LocalReportView;
  /** DNS evidence for domains no list decides; null when no resolver is configured. */
  readonly mail: MailEvidence | null;
  /** The policy the `assess` items are decided by, and where their decisions are counted. */
  readonly policy: { readonly current: CompiledPolicy };
  readonly policyCounts: PolicyCounts;
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
  /** Each IP item parsed, or its item error. */
  readonly ips: readonly (ParsedIp | ItemError)[];
  /** Each assess item's values, or its item error (not an object of them); null when the body has no `assess`. */
  readonly assess: readonly (AssessRequest | ItemError)[] | null;
}

/** Whether an assess item will look an address up: a valid global unicast one, a unit of the quota as on its GET. */
function looksUp(item: AssessRequest | ItemError): boolean {
  if ("error" in item || typeof item.ip !== "string") return false;
  const ip = parseIpAddress(item.ip);
  return ip !== null && isGlobalUnicast(ip);
}

/** A key with `check`; the request counts as an email check until its body shows IP items to look up. */
const BATCH_CHECK: AdmissionRule = { permission: "check", usage: "email" };

const BATCH_BODY = {
  async read(request: Request): Promise<Batch | ApiError> {
    const text = await readBodyText(request, MAX_BATCH_BYTES);
    return typeof text === "string"
      ? parseBatch(text)
      : text.problem === "too_large"
        ? API_ERRORS.batchTooLarge
        : API_ERRORS.invalidBatch;
  },
  // Each IP item that will be looked up (a valid global unicast address) is a unit of the quota, as its GET would be;
  // so is each assess item with such an address.
  quotaUnits: (batch: Batch) =>
    batch.ips.reduce((n, ip) => (!("error" in ip) && isGlobalUnicast(ip) ? n + 1 : n), 0) +
    (batch.assess ?? []).reduce((n, item) => (looksUp(item) ? n + 1 : n), 0),
} satisfies BodyStep<Batch>;

/**
 * `POST /v1/check/batch`: `{"emails": […], "ips": […]}`, answered in input order, each item
 * exactly the GET endpoint's answer or `{"input", "error", "message"}`. Authentication, then
 * one rate-limit token for the whole request, then the body, then the quota for every IP item
 * at once: a batch that does not fit is refused whole. The IP items looked up (valid global
 * unicast addresses) use up the quota; the private answer uses none, as on the GET.
 */
export async function checkBatch(deps: BatchDeps, request: Request): Promise<Response> {
  const admission = await admit(deps, request, BATCH_CHECK, BATCH_BODY);
  if (admission instanceof Response) return admission;
  const batch = admission.body;
  const ipUnits = batch.ips.reduce((n, ip) => (!("error" in ip) && isGlobalUnicast(ip) ? n + 1 : n), 0);

  const answers = new Answers(deps.snapshots.current(), wantsExplanation(request.url), deps.localReports, deps.mail);
  let emailsAnswered = 0;
  let ipsAnswered = 0;
  // With DNS evidence, the items no list decides are looked up together: the batch waits one budget at most.
  const checked = batch.emails.map((value) => {
    const answer = answers.email(value);
    return "error" in answer ? answer : answers.withMail(answer);
  });
  const settled = await Promise.all(checked);
  const emails = settled.map((answer) => {
    if ("error" in answer) return JSON.stringify(answer);
    emailsAnswered++;
    return answers.emailJson(answer);
  });
  const ips = batch.ips;
  const ipAnswers = ips.map((ip) => {
    if ("error" in ip) return JSON.stringify(ip);
    ipsAnswered++;
    return answers.ipJson(answers.lookUp(ip));
  });

  const assessed = batch.assess === null ? null : await assessItems(deps, answers, batch.assess, admission.nowMs);
  // An assess item refused for another of its values looked nothing up: only what was looked up is used up.
  const units = ipUnits + (assessed?.units ?? 0);

  admission.useQuota(units);
  admission.record("email", "ok", emailsAnswered);
  admission.record("email", "bad_request", emails.length - emailsAnswered);
  // As the GET counts them: "ok" used a quota unit, "ok_unmetered" (an address outside global unicast) none.
  admission.record("ip", "ok", ipUnits);
  admission.record("ip", "ok_unmetered", ipsAnswered - ipUnits);
  admission.record("ip", "bad_request", ips.length - ipsAnswered);
  if (assessed !== null) {
    admission.record("assess", "ok", assessed.units);
    admission.record("assess", "ok_unmetered", assessed.answered - assessed.units);
    admission.record("assess", "bad_request", assessed.items.length - assessed.answered);
  }
  const metrics = deps.batchItems;
  metrics.emailsAnswered += emailsAnswered;
  metrics.emailsInvalid += emails.length - emailsAnswered;
  metrics.ipsAnswered += ipsAnswered;
  metrics.ipsInvalid += ips.length - ipsAnswered;
  metrics.assessAnswered += assessed?.answered ?? 0;
  metrics.assessInvalid += (assessed?.items.length ?? 0) - (assessed?.answered ?? 0);
  const assessJson = assessed === null ? "" : `,"assess":[${assessed.items.join(",")}]`;
  return new Response(`{"emails":[${emails.join(",")}],"ips":[${ipAnswers.join(",")}]${assessJson}}`, {
    headers: admission.headers(units),
  });
}

/**
 * The assess items' answers, as POST /v1/assess gives each, or their item errors; each decision counted.
 * With DNS evidence, the emails no list decides are looked up together, as the batch's emails are.
 */
async function assessItems(
  deps: BatchDeps,
  answers: Answers,
  items: readonly (AssessRequest | ItemError)[],
  nowMs: number,
) {
  const snapshot = deps.snapshots.current();
  const policy = deps.policy.current;
  let answered = 0;
  let units = 0;
  const checked = items.map((item) => {
    const values = "error" in item ? item : assessValues(answers, item);
    return "error" in values ? values : withMailEvidence(answers, values);
  });
  const settled = deps.mail === null ? (checked as (AssessValues | ItemError)[]) : await Promise.all(checked);
  const written = settled.map((values) => {
    if ("error" in values) return JSON.stringify(values);
    answered++;
    if (values.ip?.facts) units++;
    const assessment = assess(policy, assessmentFacts(snapshot, values.email, values.ip, values.event));
    deps.policyCounts.count(assessment, policy, nowMs);
    return assessmentJson(
      assessment,
      values.email === null ? null : answers.emailJson(values.email),
      values.ip === null ? null : answers.ipJson(values.ip),
      answers.explain,
    );
  });
  return { items: written, answered, units };
}

const ASSESS_ITEM_KEYS = new Set(["email", "ip", "event"]);

function assessItem(value: unknown): AssessRequest | ItemError {
  return typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).every((k) => ASSESS_ITEM_KEYS.has(k))
    ? (value as AssessRequest)
    : itemError(value, CHECK_ERRORS.invalidAssessItem);
}

/** The body as a batch, or the error that says what is wrong with it. */
function parseBatch(text: string): Batch | ApiError {
  const fields = jsonObjectOf(text);
  if (fields === null) return API_ERRORS.invalidBatch;
  // An unknown field is most likely a misspelt one ("ip", "email"): refused rather than silently answered with nothing.
  if (Object.keys(fields).some((k) => k !== "emails" && k !== "ips" && k !== "assess")) return API_ERRORS.invalidBatch;
  const emails = fields.emails ?? [];
  const ips = fields.ips ?? [];
  const assess = fields.assess ?? null;
  if (!Array.isArray(emails) || !Array.isArray(ips) || (assess !== null && !Array.isArray(assess)))
    return API_ERRORS.invalidBatch;
  if (emails.length + ips.length + (assess?.length ?? 0) > MAX_BATCH_ITEMS) return API_ERRORS.tooManyItems;
  // An item is echoed in its error, and echoing recurses: an item nested deeper than any real one is refused here.
  if (emails.some(tooDeep) || ips.some(tooDeep) || assess?.some(tooDeep)) return API_ERRORS.invalidBatch;
  return { emails, ips: ips.map(ipItem), assess: assess === null ? null : assess.map(assessItem) };
}

/** How deep an item's arrays and objects may nest: items are strings, a mistaken one may be a small object. */
const MAX_ITEM_DEPTH = 32;

function tooDeep(item: unknown): boolean {
  let level: unknown[] = [item];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > MAX_ITEM_DEPTH) return true;
    const next: unknown[] = [];
    for (const value of level)
      if (typeof value === "object" && value !== null) for (const inner of Object.values(value)) next.push(inner);
    level = next;
  }
  return false;
}

/** An item of the batch that is no address of its kind: the GET endpoint's error for it. */
export const InvalidItemSchema = Type.Object(
  {
    input: Type.Unknown({ description: "The item as it was sent." }),
    error: StringEnum(
      [
        API_ERRORS.invalidEmail.error,
        API_ERRORS.invalidIp.error,
        CHECK_ERRORS.noValue.error,
        CHECK_ERRORS.invalidEvent.error,
        CHECK_ERRORS.invalidAssessItem.error,
      ],
      { description: "The GET endpoint's error for it (for an assess item: POST /v1/assess's, or invalid_item)." },
    ),
    message: Type.String(),
  },
  { $id: "InvalidItem", additionalProperties: false },
);

export const BatchRequestSchema = Type.Object(
  {
    emails: Type.Optional(
      Type.Array(Type.Unknown(), {
        maxItems: MAX_BATCH_ITEMS,
        description: "Email addresses; an item that is not a string is an invalid one.",
      }),
    ),
    ips: Type.Optional(
      Type.Array(Type.Unknown(), {
        maxItems: MAX_BATCH_ITEMS,
        description: "IP addresses, in the forms the IP check takes.",
      }),
    ),
    assess: Type.Optional(
      Type.Array(Type.Unknown(), {
        maxItems: MAX_BATCH_ITEMS,
        description: 'Assessments: each {"email", "ip", "event"} as POST /v1/assess takes them (no caller_ip).',
      }),
    ),
  },
  { $id: "BatchRequest", additionalProperties: false },
);

/** Each item's answer exactly as the GET endpoint gives it, or its error, in the request's order. */
export const BatchAnswerSchema = Type.Object(
  {
    emails: Type.Array(OneOf([EmailAnswerSchema, InvalidItemSchema])),
    ips: Type.Array(OneOf([IpAnswerSchema, InvalidItemSchema])),
    assess: Type.Optional(
      Type.Array(OneOf([AssessmentSchema, InvalidItemSchema]), { description: "When the request had `assess`." }),
    ),
  },
  { $id: "BatchAnswer", additionalProperties: false },
);

/** `POST /v1/check/batch` as the OpenAPI document describes it. */
export const BATCH_OPERATIONS = {
  "/v1/check/batch": {
    post: {
      tags: ["checks"],
      operationId: "checkBatch",
      summary: "Up to 1,000 email addresses, IP addresses and assessments in one request",
      description:
        "Each item's answer is exactly what the GET endpoint (for an assess item, POST /v1/assess) answers for that " +
        "value, in input order, or `{input, error, message}` for an invalid one. One rate-limit token for the whole " +
        "request. Every IP item, and every assess item with an address, counts toward the monthly quota: a batch " +
        "with more than the quota has left is refused whole with the quota's 429; those answered are used up.",
      security: [{ apiKey: [] }],
      parameters: [
        {
          name: "explain",
          in: "query",
          required: false,
          description:
            "As for the two GET checks: adds `reasons` to every email item and `reputation.reasons` to every IP " +
            "item, each item then exactly the GET answer with `explain=1` (the operator's override lines and the " +
            "evidence rule in force included).",
          schema: { type: "string" },
          example: "1",
        },
      ],
      requestBody: {
        required: true,
        description:
          "At most 1 MiB of JSON, at most 1,000 items in the two lists together; either list may be left out.",
        content: jsonContent(BatchRequestSchema, {
          mixed: { summary: "Two emails and two IPs", value: BATCH_EXAMPLES.request },
        }),
      },
      responses: {
        "200": {
          description: "The answers, in the order of the request's lists.",
          headers: { ...RATE_HEADERS, ...QUOTA_HEADERS },
          content: jsonContent(BatchAnswerSchema, {
            mixed: { summary: "POST /v1/check/batch with the request's example", value: BATCH_EXAMPLES.answer },
          }),
        },
        "400": {
          description:
            "The body is no batch: not JSON, not an object of the two lists, an unknown field, or over 1,000 items.",
          headers: RATE_HEADERS,
          content: jsonContent(errorSchema([API_ERRORS.invalidBatch, API_ERRORS.tooManyItems]), {
            invalid_body: errorExample(API_ERRORS.invalidBatch, '{"ip": ["8.8.8.8"]}'),
            too_many_items: errorExample(API_ERRORS.tooManyItems, "1,001 items"),
          }),
        },
        "401": ref("responses", "Unauthorized"),
        "403": ref("responses", "Forbidden"),
        "413": {
          description: "The body is over 1 MiB.",
          headers: RATE_HEADERS,
          content: jsonContent(errorSchema([API_ERRORS.batchTooLarge]), {
            body_too_large: errorExample(API_ERRORS.batchTooLarge, "A body over 1 MiB"),
          }),
        },
        "429": tooManyRequests(
          "The key's rate limit is used up, or the batch's IP items do not fit in what is left of its monthly " +
            "quota; nothing was answered or counted.",
          { example: "More IP items than the key's monthly quota has left", headers: QUOTA_HEADERS },
        ),
        "500": ref("responses", "InternalError"),
      },
    },
  },
} satisfies PathOperations;
