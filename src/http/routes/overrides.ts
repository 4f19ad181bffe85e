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

/** A line as the admin API shows it. Its id is its kind and target, a range's "/" written "-": "ip:203.0.113.0-24", "ip:AS64500", "email:example.com". */
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
