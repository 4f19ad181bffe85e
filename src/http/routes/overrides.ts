import { Elysia } from "elysia";
import { OverrideError, type OverrideLine, type OverrideStore, overrideLine } from "../../email/overrides.ts";
import { normaliseDomain } from "../../email/domain-name.ts";
import {
  type IpOverrideLine,
  type IpOverrideStore,
  ipOverrideLine,
  ipOverrideTarget,
  isActive,
} from "../../ip/overrides/ip-override.ts";
import { type Admission, type AdmissionDeps, type AdmissionRule, type BodyStep, admit } from "../admission.ts";
import { API_ERRORS, type ApiError, errorResponse } from "../errors.ts";
import { jsonObjectOf, readBodyText } from "../../requests/request-body.ts";
import { apiActor } from "../../audit/actors.ts";
import type { AuditRecorder, AuditTrail } from "../../audit/audit-trail.ts";
import { auditedEmailOverrides, auditedIpOverrides } from "../../audit/audited-override-stores.ts";
import type { KeyRecord } from "../../keys/key-record.ts";
import { Type } from "@sinclair/typebox";
import { Nullable, StringEnum } from "../../schema/json-schema.ts";
import { type PathOperations, RATE_HEADERS, errorExample, errorSchema, jsonContent, ref } from "../openapi-parts.ts";
import { OVERRIDE_EXAMPLES } from "../openapi-examples.ts";

export interface OverridesDeps extends AdmissionDeps {
  readonly overrides: {
    readonly email: OverrideStore;
    readonly ip: IpOverrideStore;
    /** Serve the lines as stored now, in this instance: the answer that follows a change already applies it. */
    readonly refreshEmail: () => Promise<void>;
    readonly refreshIp: () => Promise<void>;
  };
  /** Every line added or removed is recorded, by the key and the client address. */
  readonly audit: AuditTrail;
}

type Kind = "ip" | "email";

/**
 * A line as the admin API shows it. Its id is its kind and target, a range's "/" written "-": "ip:203.0.113.0-24",
 * "ip:AS64500", "email:example.com".
 */
export interface OverrideView {
  readonly id: string;
  readonly kind: Kind;
  readonly target: string;
  readonly action: "allow" | "deny";
  readonly reason: string;
  readonly author: string;
  readonly created: string;
  readonly until: string | null;
  readonly active: boolean;
}

/** A POST's body is a line: a few hundred bytes. */
const MAX_BODY_BYTES = 8 * 1024;
const PREFIX = "/v1/overrides/";

/** A key with `manage`; no quota. */
const MANAGE: AdmissionRule = { permission: "manage", usage: "manage" };

/** A line to add: a JSON object, read once the rate limit took the request's token. */
const LINE_BODY: BodyStep<Record<string, unknown>> = {
  async read(request) {
    const text = await readBodyText(request, MAX_BODY_BYTES);
    return (typeof text === "string" && jsonObjectOf(text)) || API_ERRORS.invalidOverride;
  },
};

/** `GET /v1/overrides[?kind=ip|email]`, `POST /v1/overrides`, `DELETE /v1/overrides/{id}`: for keys with the `manage` permission. */
export function overridesRoute(deps: OverridesDeps) {
  return new Elysia()
    .get("/v1/overrides", async ({ request }) => answered(admit(deps, request, MANAGE), () => listLines(deps, request)))
    .post(
      "/v1/overrides",
      async ({ request }) =>
        answered(await admit(deps, request, MANAGE, LINE_BODY), (admission) =>
          addLine(deps, admission, recorder(deps, request, admission.key)),
        ),
      { parse: "none" },
    )
    .delete("/v1/overrides/:id", async ({ request }) =>
      answered(admit(deps, request, MANAGE), (admission) =>
        removeLine(deps, request, recorder(deps, request, admission.key)),
      ),
    );
}

/** The audit trail as the request's key, from its client address. */
function recorder(deps: OverridesDeps, request: Request, key: KeyRecord): AuditRecorder {
  return deps.audit.as(apiActor(key, deps.clientAddress(request)?.text ?? "an unknown address"));
}

type Answer = { readonly status: number; readonly body: string | null } | ApiError;

/** The route's answer (201, 204, a 400 whose message names the problem) with the limit headers, its usage recorded. */
async function answered<Body>(
  admission: Admission<Body> | Response,
  handle: (admission: Admission<Body>) => Promise<Answer>,
): Promise<Response> {
  if (admission instanceof Response) return permissionNamed(admission);
  const answer = await handle(admission);
  admission.record("manage", answer.status < 400 ? "ok" : "bad_request");
  const headers = admission.headers(0);
  const body = "error" in answer ? JSON.stringify({ error: answer.error, message: answer.message }) : answer.body;
  if (body === null) delete headers["content-type"];
  return new Response(body, { status: answer.status, headers });
}

/** A refusal as admit gave it, but the missing permission's 403 says which one these routes need (an outside network's 403 stays). */
async function permissionNamed(refusal: Response): Promise<Response> {
  if (refusal.status !== 403 || ((await refusal.clone().json()) as ApiError).message !== API_ERRORS.forbidden.message)
    return refusal;
  return errorResponse(API_ERRORS.forbiddenManage);
}

async function listLines(deps: OverridesDeps, request: Request): Promise<Answer> {
  const kind = new URL(request.url).searchParams.get("kind");
  if (kind !== null && kind !== "ip" && kind !== "email") return API_ERRORS.unknownOverrideKind;
  const nowMs = deps.now();
  const ip = kind === "email" ? [] : (await deps.overrides.ip.list()).map((l) => ipView(l, nowMs));
  const email = kind === "ip" ? [] : (await deps.overrides.email.list()).map((l) => emailView(l, nowMs));
  return { status: 200, body: JSON.stringify({ overrides: [...ip, ...email] }) };
}

async function addLine(
  deps: OverridesDeps,
  { body, key }: Admission<Record<string, unknown>>,
  audit: AuditRecorder,
): Promise<Answer> {
  const { kind, target, action, reason, until } = body;
  if (kind !== "ip" && kind !== "email") return API_ERRORS.unknownOverrideKind;
  if (action !== "allow" && action !== "deny") return API_ERRORS.invalidOverrideAction;
  if (
    typeof target !== "string" ||
    (reason !== undefined && typeof reason !== "string") ||
    (until !== undefined && until !== null && typeof until !== "string")
  )
    return API_ERRORS.invalidOverride;
  const now = new Date(deps.now());
  const input = { action: action as "allow" | "deny", reason: reason ?? "", author: key.name, until: until || null };
  try {
    if (kind === "ip") {
      const line = ipOverrideLine({ ...input, target }, now);
      await auditedIpOverrides(deps.overrides.ip, audit).put(line);
      await deps.overrides.refreshIp();
      return { status: 201, body: JSON.stringify(ipView(line, now.getTime())) };
    }
    const line = overrideLine({ ...input, domain: target }, now);
    await auditedEmailOverrides(deps.overrides.email, audit).put(line);
    await deps.overrides.refreshEmail();
    return { status: 201, body: JSON.stringify(emailView(line, now.getTime())) };
  } catch (err) {
    if (!(err instanceof OverrideError)) throw err;
    return {
      status: 400,
      error: err.code,
      message: err.message.replace("--reason", "reason").replace("--until", "until"),
    };
  }
}

async function removeLine(deps: OverridesDeps, request: Request, audit: AuditRecorder): Promise<Answer> {
  const line = lineOfId(new URL(request.url).pathname.slice(PREFIX.length));
  if (line === null) return API_ERRORS.overrideNotFound;
  const [store, refresh] =
    line.kind === "ip"
      ? [auditedIpOverrides(deps.overrides.ip, audit), deps.overrides.refreshIp]
      : [auditedEmailOverrides(deps.overrides.email, audit), deps.overrides.refreshEmail];
  if (!(await store.remove(line.target))) return API_ERRORS.overrideNotFound;
  await refresh();
  return { status: 204, body: null };
}

const idOf = (kind: Kind, target: string) => `${kind}:${target.replace("/", "-")}`;

/** The kind and target an id names, in the form lines are kept in; null when it names none. */
function lineOfId(encoded: string): { kind: Kind; target: string } | null {
  let id: string;
  try {
    id = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  const colon = id.indexOf(":");
  const kind = id.slice(0, colon);
  const rest = id.slice(colon + 1);
  try {
    if (kind === "ip")
      return { kind, target: ipOverrideTarget(rest.includes("/") ? rest : rest.replace(/-(\d+)$/, "/$1")).text };
  } catch (err) {
    if (err instanceof OverrideError) return null;
    throw err;
  }
  const domain = kind === "email" ? normaliseDomain(rest) : null;
  return domain === null ? null : { kind: "email", target: domain };
}

function ipView(l: IpOverrideLine, nowMs: number): OverrideView {
  return {
    id: idOf("ip", l.target),
    kind: "ip",
    target: l.target,
    action: l.action,
    reason: l.reason,
    author: l.author,
    created: l.created,
    until: l.until,
    active: isActive(l, nowMs),
  };
}

function emailView(l: OverrideLine, nowMs: number): OverrideView {
  return {
    id: idOf("email", l.domain),
    kind: "email",
    target: l.domain,
    action: l.action,
    reason: l.reason,
    author: l.author,
    created: l.created,
    until: l.until,
    active: isActive(l, nowMs),
  };
}

export const OverrideRequestSchema = Type.Object(
  {
    kind: StringEnum(["ip", "email"]),
    target: Type.String({
      description: "ip: an address, a CIDR range without host bits, or an AS number (AS15169); email: a domain.",
    }),
    action: StringEnum(["allow", "deny"]),
    reason: Type.String({
      minLength: 1,
      maxLength: 500,
      description: "Why: shown in `?explain=1` answers and the dashboard.",
    }),
    until: Type.Optional(
      Nullable(Type.String(), {
        description:
          "The line stops applying after this day (YYYY-MM-DD, UTC, the day included) or instant (ISO 8601); " +
          "absent or null: until removed.",
      }),
    ),
  },
  { $id: "OverrideRequest" },
);

export const OverrideSchema = Type.Object(
  {
    id: Type.String({ description: "For DELETE /v1/overrides/{id}." }),
    kind: StringEnum(["ip", "email"]),
    target: Type.String({
      description: 'As kept: "203.0.113.7", "203.0.113.0/24", "2001:db8::/32", "AS15169", "example.com".',
    }),
    action: StringEnum(["allow", "deny"]),
    reason: Type.String(),
    author: Type.String({ description: "The key's name, the CLI's user, or \"dashboard\"." }),
    created: Type.String({ format: "date-time" }),
    until: Nullable(Type.String({ format: "date-time" })),
    active: Type.Boolean({ description: "False once `until` has passed: the line no longer applies." }),
  },
  { $id: "Override", additionalProperties: false },
);

export const OverrideListSchema = Type.Object(
  { overrides: Type.Array(OverrideSchema) },
  { $id: "OverrideList", additionalProperties: false },
);

/** `/v1/overrides` and `/v1/overrides/{id}` as the OpenAPI document describes it. */
export const OVERRIDE_OPERATIONS = {
  "/v1/overrides": {
    get: {
      tags: ["overrides"],
      operationId: "listOverrides",
      summary: "The override lines, IP and email, with reason, author and expiry; expired lines too (`active: false`)",
      security: [{ apiKey: [] }],
      parameters: [
        {
          name: "kind",
          in: "query",
          required: false,
          description: "Only the lines of this kind.",
          schema: { type: "string", enum: ["ip", "email"] },
        },
      ],
      responses: {
        "200": {
          description: "Every stored line; the lines of `data/ip/allowlist.txt` apply too but are not listed.",
          headers: RATE_HEADERS,
          content: jsonContent(OverrideListSchema, {
            lines: { summary: "An IP line and an email line", value: OVERRIDE_EXAMPLES.list },
          }),
        },
        "400": {
          description: "`kind` is neither ip nor email.",
          headers: RATE_HEADERS,
          content: jsonContent(errorSchema([API_ERRORS.unknownOverrideKind]), {
            unknown_kind: errorExample(API_ERRORS.unknownOverrideKind, "?kind=asn"),
          }),
        },
        "401": ref("responses", "Unauthorized"),
        "403": ref("responses", "NotManage"),
        "429": ref("responses", "ManageRateLimited"),
      },
    },
    post: {
      tags: ["overrides"],
      operationId: "addOverride",
      summary:
        "Add a line, or replace the line of the same target; every instance applies it within 3 s (IP) or 10 s (email), this one at once",
      description:
        "An IP line's target is an address, a CIDR range (IPv4 or IPv6) or an AS number (`AS15169`): `allow` " +
        "makes the verdict `ok`, not risky, `deny` makes it `bad`, risky, whatever the feeds and reports say; " +
        "where lines overlap the most specific decides. An email line's target is a domain, its subdomains " +
        "included: `allow` never disposable, `deny` always. The author is the key's name.",
      security: [{ apiKey: [] }],
      requestBody: {
        required: true,
        description: "At most 8 KiB of JSON.",
        content: jsonContent(OverrideRequestSchema, {
          range: { summary: "Allow an office's range until the end of 2026", value: OVERRIDE_EXAMPLES.request },
        }),
      },
      responses: {
        "201": {
          description: "The line as stored.",
          headers: RATE_HEADERS,
          content: jsonContent(OverrideSchema, {
            added: { summary: "POST /v1/overrides with the request's example", value: OVERRIDE_EXAMPLES.line },
          }),
        },
        "400": {
          description: "The body is not such JSON, or the line is wrong: its error says which part.",
          headers: RATE_HEADERS,
          content: jsonContent(
            errorSchema([
              API_ERRORS.invalidOverride,
              API_ERRORS.unknownOverrideKind,
              API_ERRORS.invalidOverrideAction,
              ...[
                "invalid_target",
                "missing_reason",
                "public_suffix",
                "invalid_reason",
                "invalid_until",
                "until_passed",
              ].map((error) => ({ error })),
            ]),
            {
              invalid_body: errorExample(API_ERRORS.invalidOverride, "Not JSON"),
              unknown_kind: errorExample(API_ERRORS.unknownOverrideKind, '{"kind": "asn", …}'),
              ...Object.fromEntries(
                Object.entries(OVERRIDE_EXAMPLES.refusals).map(([error, { request, message }]) => [
                  error,
                  { summary: JSON.stringify(request), value: { error, message } },
                ]),
              ),
            },
          ),
        },
        "401": ref("responses", "Unauthorized"),
        "403": ref("responses", "NotManage"),
        "429": ref("responses", "ManageRateLimited"),
      },
    },
  },
  "/v1/overrides/{id}": {
    delete: {
      tags: ["overrides"],
      operationId: "removeOverride",
      summary:
        "Remove a line; the feeds and lists decide again (every instance within 3 s for IP, 10 s for email, this one at once)",
      security: [{ apiKey: [] }],
      parameters: [
        {
          name: "id",
          in: "path",
          required: true,
          description:
            "The line's `id`: its kind and target, a range's `/` written `-` (`ip:203.0.113.0-24`, " +
            "`ip:2001:db8::-32`, `ip:AS64500`, `email:example.com`); an encoded `%2F` is taken too.",
          schema: { type: "string" },
        },
      ],
      responses: {
        "204": { description: "The line was removed.", headers: RATE_HEADERS },
        "401": ref("responses", "Unauthorized"),
        "403": ref("responses", "NotManage"),
        "404": {
          description: "No line has this id.",
          headers: RATE_HEADERS,
          content: jsonContent(errorSchema([API_ERRORS.overrideNotFound]), {
            override_not_found: errorExample(API_ERRORS.overrideNotFound, "DELETE /v1/overrides/ip:192.0.2.1"),
          }),
        },
        "429": ref("responses", "ManageRateLimited"),
      },
    },
  },
} satisfies PathOperations;
