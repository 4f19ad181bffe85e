import { Elysia } from "elysia";
import type { TrafficCounter } from "../../metrics/traffic-counter.ts";
import { Answers } from "../../checks/answers.ts";
import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { type AdmissionDeps, type AdmissionRule, admit } from "../admission.ts";
import { API_ERRORS } from "../errors.ts";
import { queryParam, wantsExplanation } from "../query.ts";
import { synchronous } from "../synchronous.ts";
import { EmailAnswerSchema } from "../../email/email-answer-schema.ts";
import {
  type PathOperations,
  RATE_HEADERS,
  errorExample,
  errorSchema,
  jsonContent,
  ref,
  tooManyRequests,
} from "../openapi-parts.ts";
import { EMAIL_EXAMPLES } from "../openapi-examples.ts";
import type { MailEvidence } from "../../email/mail-evidence.ts";

export interface EmailCheckDeps extends AdmissionDeps {
  readonly snapshots: SnapshotHolder;
  readonly traffic: TrafficCounter;
  /** DNS evidence for domains no list decides; null when no resolver is configured. */
  readonly mail: MailEvidence | null;
}

/** `GET /v1/check?email=`. */
export function emailCheck(deps: EmailCheckDeps) {
  return new Elysia().get(
    "/v1/check",
    synchronous(({ request }: { request: Request }) => {
      deps.traffic.served++;
      return checkEmail(deps, request);
    }),
  );
}

/** A key with `check`; an email check uses no quota. */
const EMAIL_CHECK: AdmissionRule = { permission: "check", usage: "email" };

/** A Response at once, unless DNS evidence must look the domain up: then within its budget. */
export function checkEmail(deps: EmailCheckDeps, request: Request): Response | Promise<Response> {
  const admission = admit(deps, request, EMAIL_CHECK);
  if (admission instanceof Response) return admission;
  const url = request.url;
  const param = queryParam(url, "email");
  if (param === "absent" || (typeof param === "object" && param.value === ""))
    return admission.refuse(API_ERRORS.missingEmail);
  // A repeated or malformed parameter is no address.
  const email = typeof param === "object" ? param.value : "";
  const answers = new Answers(deps.snapshots.current(), wantsExplanation(url), null, deps.mail);
  const answer = answers.email(email);
  if ("error" in answer) return admission.refuse(API_ERRORS.invalidEmail);
  const checked = answers.withMail(answer);
  return checked instanceof Promise
    ? checked.then((a) => admission.answer(0, answers.emailJson(a)))
    : admission.answer(0, answers.emailJson(checked));
}

/** `GET /v1/check` as the OpenAPI document describes it. */
export const EMAIL_CHECK_OPERATIONS = {
  "/v1/check": {
    get: {
      tags: ["checks"],
      operationId: "checkEmail",
      summary: "Is an email address's domain disposable, is it a free provider",
      security: [{ apiKey: [] }],
      parameters: [
        {
          name: "email",
          in: "query",
          required: true,
          description:
            "The address, percent-decoded only (a literal `+` stays `+`). Absent or empty: `missing_parameter`; " +
            "given twice or malformed: `invalid_email`.",
          schema: { type: "string", maxLength: 254 },
          example: "someone@mailinator.com",
        },
        {
          name: "explain",
          in: "query",
          required: false,
          description:
            "`explain`, `explain=1`, `=true` or `=yes` add `reasons`: the rule that decided and its entry, every " +
            "list that names the domain or the parent that matched (with when this appliance first and last saw " +
            "it there, whether the list verifies entries and which lists it copies), the override or allowlist " +
            "line that applied, the evidence rule in force, a confidence, the relay service, with DNS evidence on the " +
            "domain's mail servers (`mail`: whether it can receive mail, and the servers it shares with known " +
            "disposable domains), and hints that never " +
            "change the verdict (`did_you_mean`, `role_account`, `normalized`). `=0`, `=false`, `=no` or absent: " +
            "the spec's four fields, byte for byte.",
          schema: { type: "string" },
          example: "1",
        },
      ],
      responses: {
        "200": {
          description: "The verdict on the address's domain.",
          headers: RATE_HEADERS,
          content: jsonContent(EmailAnswerSchema, EMAIL_EXAMPLES),
        },
        "400": {
          description: "No address, or not a valid one.",
          headers: RATE_HEADERS,
          content: jsonContent(errorSchema([API_ERRORS.missingEmail, API_ERRORS.invalidEmail]), {
            missing_parameter: errorExample(API_ERRORS.missingEmail, "GET /v1/check"),
            invalid_email: errorExample(API_ERRORS.invalidEmail, "GET /v1/check?email=not-an-address"),
          }),
        },
        "401": ref("responses", "Unauthorized"),
        "403": ref("responses", "Forbidden"),
        "429": tooManyRequests("The key's rate limit is used up."),
        "500": ref("responses", "InternalError"),
      },
    },
  },
} satisfies PathOperations;
