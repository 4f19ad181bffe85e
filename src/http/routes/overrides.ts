import { Elysia } from "elysia";
import {
  type LineFilter,
  OverrideError,
  type OverrideLimits,
  type OverrideLine,
  type OverrideStore,
  overrideLine,
  publicSuffixForced,
} from "../../email/overrides.ts";
import { normaliseDomain } from "../../email/domain-name.ts";
import {
  type IpOverrideLine,
  type IpOverrideStore,
  ipOverrideLine,
  ipOverrideTarget,
  isActive,
  rangeForced,
} from "../../ip/overrides/ip-override.ts";
import { type Admission, type AdmissionDeps, type AdmissionRule, type BodyStep, admit } from "../admission.ts";
import { API_ERRORS, type ApiError, errorResponse, storageFaultResponse } from "../errors.ts";
import { jsonObjectOf, readBodyText } from "../../requests/request-body.ts";
import { apiActor } from "../../audit/actors.ts";
import type { AuditLog } from "../../audit/audit-log.ts";
import type { AuditRecorder, AuditTrail } from "../../audit/audit-trail.ts";
import { type OverrideWrites, auditedEmailOverrides, auditedIpOverrides } from "../../audit/audited-override-stores.ts";
import type { KeyRecord } from "../../keys/key-record.ts";
import { Type } from "@sinclair/typebox";
import { Nullable, StringEnum } from "../../schema/json-schema.ts";
import {
  type PathOperations,
  RATE_HEADERS,
  errorExample,
  errorSchema,
  jsonContent,
  ref,
  storageUnavailable,
} from "../openapi-parts.ts";
import { OVERRIDE_EXAMPLES } from "../openapi-examples.ts";
import { storageFaultOf } from "../../faults/storage-fault.ts";
import type { StorageHealth } from "../../faults/storage-health.ts";

export interface OverridesDeps extends AdmissionDeps {
  readonly overrides: {
    readonly email: OverrideStore;
    readonly ip: IpOverrideStore;
    /** Serve the lines as stored now, in this instance: the answer that follows a change already applies it. */
    readonly refreshEmail: () => Promise<void>;
    readonly refreshIp: () => Promise<void>;
    readonly limits: OverrideLimits;
  };
  /** Every line added or removed is recorded, by the key and the client address, in the change's transaction. */
  readonly audit: AuditTrail<OverrideWrites & { readonly audit: AuditLog }>;
  readonly storage: StorageHealth;
  readonly logError: (line: string) => void;
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
/** Lines a page holds unless `limit` says otherwise, and at most. */
const PAGE_LINES = { default: 100, most: 1000 } as const;

/** A key with `manage`; no quota. */
const MANAGE: AdmissionRule = { permission: "manage", usage: "manage" };

/** A line to add: a JSON object, read once the rate limit took the request's token. */
const LINE_BODY: BodyStep<Record<string, unknown>> = {
  async read(request) {
    const text = await readBodyText(request, MAX_BODY_BYTES);
    return (typeof text === "string" && jsonObjectOf(text)) || API_ERRORS.invalidOverride;
  },
};

/** `GET /v1/overrides[?kind=&action=&target=&limit=&after=]`, `POST /v1/overrides`, `DELETE /v1/overrides/{id}`: for keys with `manage`. */
export function overridesRoute(deps: OverridesDeps) {
  return new Elysia()
    .get("/v1/overrides", async ({ request }) =>
      answered(deps, request, admit(deps, request, MANAGE), () => listLines(deps, request)),
    )
    .post(
      "/v1/overrides",
      async ({ request }) =>
        answered(deps, request, await admit(deps, request, MANAGE, LINE_BODY), (admission) =>
          addLine(deps, admission, recorder(deps, request, admission.key)),
        ),
      { parse: "none" },
    )
    .delete("/v1/overrides/:id", async ({ request }) =>
      answered(deps, request, admit(deps, request, MANAGE), (admission) =>
        removeLine(deps, request, recorder(deps, request, admission.key)),
      ),
    );
}

/** The audit trail as the request's key, from its client address. */
function recorder(deps: OverridesDeps, request: Request, key: KeyRecord): AuditRecorder<OverrideWrites> {
  return deps.audit.as(apiActor(key, deps.clientAddress(request)?.text ?? "an unknown address"));
}

type Answer = { readonly status: number; readonly body: string | null } | ApiError;

/**
 * The route's answer (200, 201, 204, a 400 whose message names the problem, the database's 503)
 * with the limit headers, its usage recorded.
 */
async function answered<Body>(
  deps: OverridesDeps,
  request: Request,
  admission: Admission<Body> | Response,
  handle: (admission: Admission<Body>) => Promise<Answer>,
): Promise<Response> {
  if (admission instanceof Response) return permissionNamed(admission);
  let answer: Answer;
  try {
    answer = await handle(admission);
  } catch (err) {
    const fault = storageFaultOf(err);
    if (fault === null) throw err;
    if (deps.storage.noted(fault))
      deps.logError(`${request.method} /v1/overrides: ${fault.message} (answered 503 while it lasts)`);
    admission.record("manage", "bad_request");
    return storageFaultResponse(fault, request.method, admission.headers(0));
  }
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

/** A page of lines, IP lines before email ones, each kind in target order; `next` is the `after` of the following page. */
async function listLines(deps: OverridesDeps, request: Request): Promise<Answer> {
  const query = pageQuery(new URL(request.url).searchParams);
  if ("error" in query) return query;
  const { kinds, filter, after, limit } = query;
  const nowMs = deps.now();
  const views: OverrideView[] = [];
  for (const kind of kinds) {
    if (after !== null && kinds.indexOf(after.kind) > kinds.indexOf(kind)) continue;
    const from = after?.kind === kind ? after.target : null;
    const room = limit + 1 - views.length;
    if (room <= 0) break;
    if (kind === "ip") views.push(...(await deps.overrides.ip.page(filter, from, room)).map((l) => ipView(l, nowMs)));
    else views.push(...(await deps.overrides.email.page(filter, from, room)).map((l) => emailView(l, nowMs)));
  }
  const page = views.slice(0, limit);
  const next = views.length > limit ? page[page.length - 1].id : null;
  return { status: 200, body: JSON.stringify({ overrides: page, next }) };
}

/** The listing's parameters, each checked: a wrong one is a 400 naming it. */
function pageQuery(
  params: URLSearchParams,
): { kinds: Kind[]; filter: LineFilter; after: { kind: Kind; target: string } | null; limit: number } | ApiError {
  for (const name of params.keys())
    if (!["kind", "action", "target", "limit", "after"].includes(name) || params.getAll(name).length > 1)
      return pageError(`${name}: not a parameter of this listing (kind, action, target, limit, after), or given twice`);
  const kind = params.get("kind");
  if (kind !== null && kind !== "ip" && kind !== "email") return API_ERRORS.unknownOverrideKind;
  const action = params.get("action");
  if (action !== null && action !== "allow" && action !== "deny") return API_ERRORS.invalidOverrideAction;
  const limitText = params.get("limit");
  const limit = limitText === null ? PAGE_LINES.default : Number(limitText);
  if (!/^\d{1,4}$/.test(limitText ?? "1") || limit < 1 || limit > PAGE_LINES.most)
    return pageError(`limit must be a whole number from 1 to ${PAGE_LINES.most}`);
  const afterText = params.get("after");
  const after = afterText === null ? null : lineOfId(afterText);
  if (afterText !== null && after === null) return pageError("after must be the id of a line, as `next` gives it");
  if (after !== null && kind !== null && after.kind !== kind) return pageError("after names a line of another kind");
  const prefix = params.get("target");
  if (prefix !== null && (prefix.length > 255 || /[\u0000-\u001f\u007f]/.test(prefix)))
    return pageError("target must be the start of a target, at most 255 characters, without control characters");
  return {
    kinds: kind === null ? ["ip", "email"] : [kind],
    filter: { ...(action === null ? {} : { action }), ...(prefix ? { prefix } : {}) },
    after,
    limit,
  };
}

const pageError = (message: string): ApiError => ({ status: 400, error: "invalid_parameter", message });

async function addLine(
  deps: OverridesDeps,
  { body, key }: Admission<Record<string, unknown>>,
  audit: AuditRecorder<OverrideWrites>,
): Promise<Answer> {
  const { kind, target, action, reason, until, force } = body;
  if (kind !== "ip" && kind !== "email") return API_ERRORS.unknownOverrideKind;
  if (action !== "allow" && action !== "deny") return API_ERRORS.invalidOverrideAction;
  if (
    typeof target !== "string" ||
    (reason !== undefined && typeof reason !== "string") ||
    (until !== undefined && until !== null && typeof until !== "string") ||
    (force !== undefined && typeof force !== "boolean")
  )
    return API_ERRORS.invalidOverride;
  const now = new Date(deps.now());
  const input = {
    action: action as "allow" | "deny",
    reason: reason ?? "",
    author: key.name,
    keyId: key.id,
    until: until || null,
    force: force === true,
  };
  const { limits } = deps.overrides;
  try {
    if (kind === "ip") {
      const line = ipOverrideLine({ ...input, target }, now);
      const stored = await auditedIpOverrides(deps.overrides.ip, audit, limits).put(
        line,
        input.force ? rangeForced(line.target) : null,
      );
      await refreshed(deps, deps.overrides.refreshIp);
      return { status: stored.changed ? 201 : 200, body: JSON.stringify(ipView(stored.line, now.getTime())) };
    }
    const line = overrideLine({ ...input, domain: target }, now);
    const stored = await auditedEmailOverrides(deps.overrides.email, audit, limits).put(
      line,
      input.force ? publicSuffixForced(line.domain) : null,
    );
    await refreshed(deps, deps.overrides.refreshEmail);
    return { status: stored.changed ? 201 : 200, body: JSON.stringify(emailView(stored.line, now.getTime())) };
  } catch (err) {
    if (!(err instanceof OverrideError)) throw err;
    return {
      status: err.code === "limit_reached" ? 409 : 400,
      error: err.code,
      message: err.message
        .replace("--reason", "reason")
        .replace("--until", "until")
        .replace("--force", '"force": true'),
    };
  }
}

async function removeLine(
  deps: OverridesDeps,
  request: Request,
  audit: AuditRecorder<OverrideWrites>,
): Promise<Answer> {
  const line = lineOfId(new URL(request.url).pathname.slice(PREFIX.length));
  if (line === null) return API_ERRORS.overrideNotFound;
  const { limits } = deps.overrides;
  const [lines, refresh] =
    line.kind === "ip"
      ? [auditedIpOverrides(deps.overrides.ip, audit, limits), deps.overrides.refreshIp]
      : [auditedEmailOverrides(deps.overrides.email, audit, limits), deps.overrides.refreshEmail];
  if (!(await lines.remove(line.target))) return API_ERRORS.overrideNotFound;
  await refreshed(deps, refresh);
  return { status: 204, body: null };
}

/**
 * This instance applies the change before it answers. The change is committed already: a
 * failure to read it back (the database gone the moment after) is logged, the watch applies
 * it at its next look, and the answer stays the change's.
 */
async function refreshed(deps: OverridesDeps, refresh: () => Promise<void>): Promise<void> {
  await refresh().catch((err: Error) => {
    const fault = storageFaultOf(err);
    if (fault) deps.storage.noted(fault);
    deps.logError(
      `overrides: the change is stored, but reading it back failed; it applies at the next look: ${err.message}`,
    );
  });
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
      description:
        "Why: shown in `?explain=1` answers and the dashboard. One line of visible text: no control or invisible formatting characters.",
    }),
    until: Type.Optional(
      Nullable(Type.String(), {
        description:
          "The line stops applying after this day (YYYY-MM-DD, UTC, the day included) or instant (ISO 8601); " +
          "absent or null: until removed.",
      }),
    ),
    force: Type.Optional(
      Type.Boolean({
        description: "Take a range broader than /8 (/16 for IPv6), or a public suffix; recorded as forced.",
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
      description: 'As kept: "81.2.69.142", "81.2.69.0/24", "2a00:1450::/32", "AS15169", "example.com".',
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
  {
    overrides: Type.Array(OverrideSchema),
    next: Nullable(Type.String(), { description: "The `after` of the following page; null on the last." }),
  },
  { $id: "OverrideList", additionalProperties: false },
);

/** `/v1/overrides` and `/v1/overrides/{id}` as the OpenAPI document describes it. */
export const OVERRIDE_OPERATIONS = {
  "/v1/overrides": {
    get: {
      tags: ["overrides"],
      operationId: "listOverrides",
      summary:
        "A page of the override lines, IP then email, each kind in target order, with reason, author and expiry; " +
        "expired lines too (`active: false`)",
      security: [{ apiKey: [] }],
      parameters: [
        {
          name: "kind",
          in: "query",
          required: false,
          description: "Only the lines of this kind.",
          schema: { type: "string", enum: ["ip", "email"] },
        },
        {
          name: "action",
          in: "query",
          required: false,
          description: "Only the lines of this action.",
          schema: { type: "string", enum: ["allow", "deny"] },
        },
        {
          name: "target",
          in: "query",
          required: false,
          description:
            "Only the lines whose target starts with this, as targets are kept (lower case; `AS` in capitals): " +
            "`81.2.69.`, `AS64`, `example.`.",
          schema: { type: "string", maxLength: 255 },
        },
        {
          name: "limit",
          in: "query",
          required: false,
          description: `Lines in the page: 1 to ${PAGE_LINES.most}, ${PAGE_LINES.default} unless given.`,
          schema: { type: "string", pattern: "^[0-9]{1,4}$" },
        },
        {
          name: "after",
          in: "query",
          required: false,
          description: "The page after this line: the `next` of the page before.",
          schema: { type: "string" },
        },
      ],
      responses: {
        "200": {
          description:
            "One page of the stored lines; `next` is the `after` of the following page, null on the last. The lines " +
            "of `data/ip/allowlist.txt` apply too but are not listed.",
          headers: RATE_HEADERS,
          content: jsonContent(OverrideListSchema, {
            lines: { summary: "An IP line and an email line", value: OVERRIDE_EXAMPLES.list },
          }),
        },
        "400": {
          description: "A parameter is wrong: its error says which.",
          headers: RATE_HEADERS,
          content: jsonContent(
            errorSchema([
              API_ERRORS.unknownOverrideKind,
              API_ERRORS.invalidOverrideAction,
              { error: "invalid_parameter" },
            ]),
            {
              unknown_kind: errorExample(API_ERRORS.unknownOverrideKind, "?kind=asn"),
              invalid_parameter: {
                summary: "?limit=5000",
                value: {
                  error: "invalid_parameter",
                  message: `limit must be a whole number from 1 to ${PAGE_LINES.most}`,
                },
              },
            },
          ),
        },
        "401": ref("responses", "Unauthorized"),
        "403": ref("responses", "NotManage"),
        "429": ref("responses", "ManageRateLimited"),
        "503": storageUnavailable(["unreachable"], true),
      },
    },
    post: {
      tags: ["overrides"],
      operationId: "addOverride",
      summary:
        "Add a line, or replace the line of the same target; every instance applies it within 3 s (IP) or 10 s (email), this one at once",
      description:
        "An IP line's target is an address, a CIDR range (IPv4 or IPv6) or an AS number (`AS15169`): `allow` " +
        "makes the verdict `ok`, not risky, `deny` makes it `bad`, risky, whatever the feeds and reports say. " +
        "Where lines overlap, the address's own line decides, else the longest range covering it, else its " +
        "network's (AS) line, else a range broader than /8 (/16 for IPv6), which is refused unless `force` is true. " +
        "A range of special-purpose space only (private, loopback, documentation…) is refused: the check answers " +
        "such addresses before any line. An email line's target is a domain, its subdomains included: `allow` " +
        "never disposable, `deny` always; a public suffix (`co.uk`, `github.io`) is refused unless `force`. A " +
        "forced line is recorded as such in the audit log. The author is the key's name. The line is stored with " +
        "its audit event in one transaction: a 201 is both, a 503 says whether the change may have been made.",
      security: [{ apiKey: [] }],
      requestBody: {
        required: true,
        description: "At most 8 KiB of JSON.",
        content: jsonContent(OverrideRequestSchema, {
          range: { summary: "Allow an office's range until the end of 2026", value: OVERRIDE_EXAMPLES.request },
        }),
      },
      responses: {
        "200": {
          description:
            "The line was there already as asked: it stays as it was (its author and date), and nothing is recorded.",
          headers: RATE_HEADERS,
          content: jsonContent(OverrideSchema, {
            unchanged: { summary: "The request's example, posted again", value: OVERRIDE_EXAMPLES.line },
          }),
        },
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
                "too_broad",
                "special_purpose",
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
        "409": {
          description:
            "A new line beyond RISKCHECK_MAX_OVERRIDE_LINES (of its kind), or beyond " +
            "RISKCHECK_MAX_OVERRIDE_LINES_PER_KEY of the key's own: nothing was stored, the refusal is recorded. A " +
            "line replaced is never refused.",
          headers: RATE_HEADERS,
          content: jsonContent(errorSchema([{ error: "limit_reached" }]), {
            limit_reached: {
              summary: JSON.stringify(OVERRIDE_EXAMPLES.limitReached.request),
              value: { error: "limit_reached", message: OVERRIDE_EXAMPLES.limitReached.message },
            },
          }),
        },
        "429": ref("responses", "ManageRateLimited"),
        "503": storageUnavailable(["locked", "unknown"]),
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
            "The line's `id`: its kind and target, a range's `/` written `-` (`ip:81.2.69.0-24`, " +
            "`ip:2a00:1450::-32`, `ip:AS64500`, `email:example.com`); an encoded `%2F` is taken too.",
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
        "503": storageUnavailable(["locked"]),
      },
    },
  },
} satisfies PathOperations;
