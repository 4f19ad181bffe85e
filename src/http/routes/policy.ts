import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { CompiledPolicy } from "../../assess/compiled-policy.ts";
import { PolicyError } from "../../assess/parse-policy.ts";
import {
  type PolicyEdit,
  PolicyBusy,
  RuleNotFound,
  moveRule,
  putRule,
  removeRule,
  replaceRules,
  setMode,
} from "../../assess/policy-edits.ts";
import { RULE_MODES, type PolicyRule, type RuleMode, isActive } from "../../assess/policy-rule.ts";
import { RuleInputSchema, StoredRuleProperties } from "../../assess/policy-rule-schema.ts";
import { POLICY_LIMITS } from "../../assess/parse-policy.ts";
import { Nullable, StringEnum } from "../../schema/json-schema.ts";
import type { PolicyStore } from "../../assess/policy-store.ts";
import { apiActor } from "../../audit/actors.ts";
import type { AuditLog } from "../../audit/audit-log.ts";
import type { AuditTrail } from "../../audit/audit-trail.ts";
import { auditedPolicy } from "../../audit/audited-policy.ts";
import { jsonObjectOf, readBodyText } from "../../requests/request-body.ts";
import { type Admission, type AdmissionDeps, type AdmissionRule, type BodyStep, admit } from "../admission.ts";
import { API_ERRORS, type ApiError, errorResponse } from "../errors.ts";
import { POLICY_EXAMPLES } from "../openapi-examples.ts";
import { type PathOperations, RATE_HEADERS, errorExample, errorSchema, jsonContent, ref } from "../openapi-parts.ts";
import { queryParam } from "../query.ts";

export interface PolicyDeps extends AdmissionDeps {
  readonly policyStore: PolicyStore;
  /** The policy in force here; `refresh` serves the rules as stored now, so the answer that follows an edit already applies it. */
  readonly policy: { readonly current: CompiledPolicy; refresh(): Promise<boolean> };
  /** Every edit is recorded, by the key and the client address, in the edit's transaction. */
  readonly audit: AuditTrail<{ readonly audit: AuditLog; readonly policy: PolicyStore }>;
}

/** A key with `manage`; no quota. */
const MANAGE: AdmissionRule = { permission: "manage", usage: "manage" };
/** A rule set is at most 1 MiB as JSON; its request, spaced out, may be larger. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;
const PREFIX = "/v1/policy/rules/";

const OBJECT_BODY: BodyStep<Record<string, unknown>> = {
  async read(request) {
    const text = await readBodyText(request, MAX_BODY_BYTES);
    if (typeof text !== "string")
      return text.problem === "too_large" ? API_ERRORS.policyTooLarge : API_ERRORS.invalidPolicyBody;
    return jsonObjectOf(text) ?? API_ERRORS.invalidPolicyBody;
  },
};

/**
 * The admin API of the assessment rules, for keys with the `manage` permission:
 * `GET /v1/policy`, `PUT /v1/policy` (the whole set), `POST /v1/policy/rules` (one rule, added
 * or replaced by id), `PATCH /v1/policy/rules/{id}` (mode, place) and `DELETE /v1/policy/rules/{id}`.
 */
export function policyRoute(deps: PolicyDeps) {
  const edit = (request: Request, admission: Admission<unknown>, make: () => PolicyEdit, status = 200) =>
    applied(deps, request, admission, make, status);
  return new Elysia()
    .get("/v1/policy", async ({ request }) => answered(admit(deps, request, MANAGE), () => listed(deps)))
    .put(
      "/v1/policy",
      async ({ request }) =>
        answered(await admit(deps, request, MANAGE, OBJECT_BODY), (admission) =>
          edit(request, admission, () =>
            replaceRules(admission.body, { author: admission.key.name, nowMs: admission.nowMs }, shadowAsked(request)),
          ),
        ),
      { parse: "none" },
    )
    .post(
      "/v1/policy/rules",
      async ({ request }) =>
        answered(await admit(deps, request, MANAGE, OBJECT_BODY), (admission) => {
          const position = queryParam(request.url, "position");
          const at = typeof position === "object" ? placeOf(position.value) : position === "absent" ? null : undefined;
          if (at === undefined) return API_ERRORS.invalidPolicyBody;
          return edit(
            request,
            admission,
            () => putRule(admission.body, { author: admission.key.name, nowMs: admission.nowMs }, at),
            201,
          );
        }),
      { parse: "none" },
    )
    .patch(
      "/v1/policy/rules/:id",
      async ({ request }) =>
        answered(await admit(deps, request, MANAGE, OBJECT_BODY), (admission) => {
          const id = idOf(request);
          const { mode, position, ...rest } = admission.body;
          const at =
            position === undefined ? null : typeof position === "number" ? placeOf(String(position)) : undefined;
          if (
            Object.keys(rest).length > 0 ||
            at === undefined ||
            (mode !== undefined && !RULE_MODES.includes(mode as RuleMode))
          )
            return API_ERRORS.invalidPolicyBody;
          if (mode === undefined && at === null) return API_ERRORS.invalidPolicyBody;
          return edit(request, admission, () => ({
            action: "changed",
            target: id,
            apply: (rules) => {
              const moved = at === null ? rules : moveRule(id, at).apply(rules);
              return mode === undefined ? moved : setMode(id, mode as RuleMode).apply(moved);
            },
          }));
        }),
      { parse: "none" },
    )
    .delete("/v1/policy/rules/:id", async ({ request }) =>
      answered(admit(deps, request, MANAGE), async (admission) => {
        const answer = await applied(deps, request, admission, () => removeRule(idOf(request)), 204);
        return "error" in answer ? answer : { status: 204, body: null };
      }),
    );
}

const shadowAsked = (request: Request) => {
  const shadow = queryParam(request.url, "shadow");
  return typeof shadow === "object" && ["", "1", "true", "yes"].includes(shadow.value.toLowerCase());
};

const placeOf = (text: string) => (/^[1-9]\d{0,3}$/.test(text) ? Number(text) : undefined);

function idOf(request: Request): string {
  const raw = new URL(request.url).pathname.slice(PREFIX.length);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

type Answer = { readonly status: number; readonly body: string | null } | ApiError;

/** The route's answer with the limit headers, its usage recorded. */
async function answered<Body>(
  admission: Admission<Body> | Response | Promise<Admission<Body> | Response>,
  handle: (admission: Admission<Body>) => Answer | Promise<Answer>,
): Promise<Response> {
  const admitted = await admission;
  if (admitted instanceof Response) return permissionNamed(admitted);
  const answer = await handle(admitted);
  admitted.record("manage", answer.status < 400 ? "ok" : "bad_request");
  const headers = admitted.headers(0);
  if ("error" in answer) {
    const body: Record<string, unknown> = { error: answer.error, message: answer.message };
    if ("problems" in answer) body.problems = answer.problems;
    return new Response(JSON.stringify(body), { status: answer.status, headers });
  }
  if (answer.body === null) delete headers["content-type"];
  return new Response(answer.body, { status: answer.status, headers });
}

/** The missing permission's 403 says which one these routes need (an outside network's 403 stays as it is). */
async function permissionNamed(refusal: Response): Promise<Response> {
  if (refusal.status !== 403 || ((await refusal.clone().json()) as ApiError).message !== API_ERRORS.forbidden.message)
    return refusal;
  return errorResponse(API_ERRORS.forbiddenManage);
}

/** The set as the API shows it: the version in force, the stored revision, every rule with whether it applies now. */
function view(rules: readonly PolicyRule[], revision: number, nowMs: number): string {
  const listed = rules.map((r) => ({ ...r, active: isActive(r, nowMs) }));
  return JSON.stringify({ policy: CompiledPolicy.inForce(rules, nowMs).version, revision, rules: listed });
}

async function listed(deps: PolicyDeps): Promise<Answer> {
  const { rules, revision } = await deps.policyStore.read();
  return { status: 200, body: view(rules, revision, deps.now()) };
}

/** An edit made as the request's key, recorded, in force here before the answer; a refused set names every problem. */
async function applied(
  deps: PolicyDeps,
  request: Request,
  admission: Admission<unknown>,
  make: () => PolicyEdit,
  status: number,
): Promise<Answer> {
  const audit = deps.audit.as(apiActor(admission.key, deps.clientAddress(request)?.text ?? "an unknown address"));
  try {
    const { after, revision } = await auditedPolicy(deps.policyStore, audit).apply(make());
    await deps.policy.refresh();
    return { status, body: view(after, revision, deps.now()) };
  } catch (err) {
    if (err instanceof PolicyError)
      return { status: 400, error: "invalid_policy", message: err.message, problems: err.problems } as ApiError;
    if (err instanceof RuleNotFound) return API_ERRORS.ruleNotFound;
    if (err instanceof PolicyBusy) return API_ERRORS.policyBusy;
    throw err;
  }
}

export const RuleSetSchema = Type.Object(
  { rules: Type.Array(RuleInputSchema, { maxItems: POLICY_LIMITS.rules }) },
  { $id: "RuleSet", additionalProperties: false },
);

/** The set as the admin API shows it (`view`). */
export const PolicySchema = Type.Object(
  {
    policy: Type.String({ description: "The version in force." }),
    revision: Type.Integer({ minimum: 0, description: "Moves by one with every stored change." }),
    rules: Type.Array(
      Type.Object(
        {
          ...StoredRuleProperties,
          active: Type.Boolean({ description: "False once `expires` has passed: the rule no longer applies." }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: "Policy", additionalProperties: false },
);

export const PolicyRefusalSchema = Type.Object(
  {
    error: StringEnum(["invalid_body", "invalid_policy"]),
    message: Type.String(),
    problems: Type.Optional(
      Type.Array(
        Type.Object(
          {
            index: Nullable(Type.Integer(), {
              description: "The rule's place, from 0; null for the set's own, or a rule given alone.",
            }),
            rule: Nullable(Type.String()),
            path: Type.String({ description: "Where in the rule: `decision`, `conditions.all[1].field`." }),
            message: Type.String(),
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { $id: "PolicyRefusal", additionalProperties: false },
);

/** What every operation of the rules answers besides its own. */
const ADMISSION = {
  "401": ref("responses", "Unauthorized"),
  "403": ref("responses", "NotManage"),
  "429": ref("responses", "ManageRateLimited"),
};
const policyAnswer = (description: string, examples?: Record<string, { summary: string; value: unknown }>) => ({
  description,
  headers: RATE_HEADERS,
  content: jsonContent(PolicySchema, examples),
});
const refused = (summary: string, answer: unknown) => ({
  description:
    "The body is not such JSON, or the rules do not parse, name an unknown field or exceed the limits: refused " +
    "whole, nothing changed, every problem named by rule and field.",
  headers: RATE_HEADERS,
  content: jsonContent(PolicyRefusalSchema, { invalid_policy: { summary, value: answer } }),
});
const RULE_ID = { name: "id", in: "path", required: true, description: "The rule's id.", schema: { type: "string" } };
const NOT_FOUND = {
  description: "No rule has this id.",
  headers: RATE_HEADERS,
  content: jsonContent(errorSchema([API_ERRORS.ruleNotFound]), {
    rule_not_found: errorExample(API_ERRORS.ruleNotFound, "A rule removed already"),
  }),
};
const TOO_LARGE = {
  description: "The body is over 2 MiB.",
  headers: RATE_HEADERS,
  content: jsonContent(errorSchema([API_ERRORS.policyTooLarge])),
};

/** `/v1/policy`, `/v1/policy/rules` and `/v1/policy/rules/{id}` as the OpenAPI document describes them. */
export const POLICY_OPERATIONS = {
  "/v1/policy": {
    get: {
      tags: ["policy"],
      operationId: "getPolicy",
      summary: "The assessment rules in order, the policy's version and the stored revision",
      security: [{ apiKey: [] }],
      responses: {
        "200": policyAnswer("Every stored rule, expired ones too (`active: false`).", {
          none: { summary: "No rule: the default policy decides", value: POLICY_EXAMPLES.none },
        }),
        ...ADMISSION,
      },
    },
    put: {
      tags: ["policy"],
      operationId: "replacePolicy",
      summary:
        "Replace every rule with a rule set, checked whole; every instance applies it within 2 s, this one at once",
      description:
        "`?shadow=1` puts every rule of the set in shadow: a candidate policy, counted but deciding nothing. A rule " +
        "without `author` gets the key's name.",
      security: [{ apiKey: [] }],
      parameters: [
        {
          name: "shadow",
          in: "query",
          required: false,
          description: "`shadow`, `=1`, `=true` or `=yes`: every rule of the set in shadow.",
          schema: { type: "string" },
        },
      ],
      requestBody: { required: true, description: "At most 2 MiB of JSON.", content: jsonContent(RuleSetSchema) },
      responses: {
        "200": policyAnswer("The rules as stored now."),
        "400": refused("A rule on an unknown field", POLICY_EXAMPLES.refused.answer),
        "413": TOO_LARGE,
        ...ADMISSION,
      },
    },
  },
  "/v1/policy/rules": {
    post: {
      tags: ["policy"],
      operationId: "addRule",
      summary: "Add a rule, or replace the rule with its id (in its place); a rule without a mode is in shadow",
      security: [{ apiKey: [] }],
      parameters: [
        {
          name: "position",
          in: "query",
          required: false,
          description: "Its place in the order, from 1; by default the end, or the place of the rule it replaces.",
          schema: { type: "string", pattern: "^[1-9][0-9]{0,3}$" },
        },
      ],
      requestBody: {
        required: true,
        content: jsonContent(RuleInputSchema, {
          rule: { summary: "Block a throwaway address from a data centre", value: POLICY_EXAMPLES.rule },
        }),
      },
      responses: {
        "201": policyAnswer("The rules as stored now.", {
          added: { summary: "POST /v1/policy/rules with the request's example", value: POLICY_EXAMPLES.added },
        }),
        "400": refused("A rule with an unknown decision", POLICY_EXAMPLES.refusedRule.answer),
        ...ADMISSION,
      },
    },
  },
  "/v1/policy/rules/{id}": {
    patch: {
      tags: ["policy"],
      operationId: "changeRule",
      summary: "Switch a rule between shadow and enforce, or move it: nothing else of it changes",
      security: [{ apiKey: [] }],
      parameters: [RULE_ID],
      requestBody: {
        required: true,
        content: jsonContent(
          Type.Object(
            {
              mode: Type.Optional(StringEnum(RULE_MODES)),
              position: Type.Optional(Type.Integer({ minimum: 1, maximum: 9999 })),
            },
            { additionalProperties: false, minProperties: 1 },
          ),
        ),
      },
      responses: {
        "200": policyAnswer("The rules as stored now."),
        "400": {
          description: "The body is not such JSON.",
          headers: RATE_HEADERS,
          content: jsonContent(errorSchema([API_ERRORS.invalidPolicyBody])),
        },
        "404": NOT_FOUND,
        ...ADMISSION,
      },
    },
    delete: {
      tags: ["policy"],
      operationId: "removeRule",
      summary: "Remove a rule; every instance applies it within 2 s, this one at once",
      security: [{ apiKey: [] }],
      parameters: [RULE_ID],
      responses: {
        "204": { description: "The rule was removed.", headers: RATE_HEADERS },
        "404": NOT_FOUND,
        ...ADMISSION,
      },
    },
  },
} satisfies PathOperations;
