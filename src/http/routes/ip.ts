import { Elysia } from "elysia";
import { Answers } from "../../checks/answers.ts";
import type { TrafficCounter } from "../../metrics/traffic-counter.ts";
import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { parseIpAddress } from "../../ip/address/parse.ts";
import type { LocalReportView } from "../../ip/verdict/local-reports.ts";
import { type AdmissionDeps, type AdmissionRule, admit } from "../admission.ts";
import type { ClientResolver, Listening } from "../client-info.ts";
import { API_ERRORS } from "../errors.ts";
import { queryParam, wantsExplanation } from "../query.ts";
import { synchronous } from "../synchronous.ts";
import { IpAnswerSchema } from "../../ip/answer/ip-answer-schema.ts";
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
import { IP_EXAMPLES } from "../openapi-examples.ts";

export interface IpCheckDeps extends AdmissionDeps {
  readonly snapshots: SnapshotHolder;
  /** Tells the caller's own address, checked when the request names none. */
  readonly client: Pick<ClientResolver, "address">;
  readonly traffic: TrafficCounter;
  /** This deployment's own reports, one more source of the verdict. */
  readonly localReports: LocalReportView;
}

/**
 * `GET /v1/ip-reputation-check[?ip=]`. `listening` is the server, asked for the socket peer
 * only when the request names no address (Elysia's `server` in the context would cost a
 * property definition on every request).
 */
export function ipCheck(deps: IpCheckDeps, listening: Listening) {
  return new Elysia().get(
    "/v1/ip-reputation-check",
    synchronous(({ request }: { request: Request }) => {
      deps.traffic.served++;
      return checkIp(deps, request, listening);
    }),
  );
}

/** A key with `check`; a looked-up answer uses one unit of the quota, checked before the parameter. */
const IP_CHECK: AdmissionRule = { permission: "check", usage: "ip", quotaUnits: 1 };

export function checkIp(deps: IpCheckDeps, request: Request, listening: Listening): Response {
  const admission = admit(deps, request, IP_CHECK);
  if (admission instanceof Response) return admission;
  const url = request.url;
  const param = queryParam(url, "ip");
  const ip =
    param === "absent"
      ? deps.client.address(request, listening())
      : typeof param === "object"
        ? parseIpAddress(param.value)
        : null;
  if (ip === null) return admission.refuse(API_ERRORS.invalidIp);
  const answers = new Answers(deps.snapshots.current(), wantsExplanation(url), deps.localReports);
  const checked = answers.lookUp(ip);
  // Only a global unicast address is looked up; the private answer (the caller's own loopback
  // or LAN address included) costs nothing and spends no quota.
  return admission.answer(checked.facts === null ? 0 : 1, answers.ipJson(checked));
}

/** `GET /v1/ip-reputation-check` as the OpenAPI document describes it. */
export const IP_CHECK_OPERATIONS = {
  "/v1/ip-reputation-check": {
    get: {
      tags: ["checks"],
      operationId: "checkIp",
      summary: "Geolocation, network owner and reputation of an IP address",
      security: [{ apiKey: [] }],
      parameters: [
        {
          name: "ip",
          in: "query",
          required: false,
          description:
            "IPv4 as canonical dotted-quad decimal, or IPv6 in any RFC 4291 form (answered in RFC 5952 form; " +
            "IPv4-mapped IPv6 is answered as IPv4). Omitted: the caller's own address.",
          schema: { type: "string", maxLength: 64 },
          example: "81.2.69.142",
        },
        {
          name: "explain",
          in: "query",
          required: false,
          description:
            "`explain`, `explain=1`, `=true` or `=yes` add `reputation.reasons`: the rule that set the level with " +
            "its threshold, every list's word on the address (with the reports it adds and when this appliance " +
            "first and last saw it there), and where each kind came from. `=0`, `=false`, `=no` or absent: the " +
            "spec's body only.",
          schema: { type: "string" },
          example: "1",
        },
      ],
      responses: {
        "200": {
          description:
            "What the datasets say about the address. Every address that is not global unicast (private, " +
            "loopback, CGNAT, documentation …) gets empty strings, zero coordinates, a clean `ok` reputation and " +
            "no `flag`, without any lookup.",
          headers: { ...RATE_HEADERS, ...QUOTA_HEADERS },
          content: jsonContent(IpAnswerSchema, IP_EXAMPLES),
        },
        "400": {
          description:
            "Not an IP address in an accepted form (`1.2.3`, `01.2.3.4`, `0x7f.0.0.1`, surrounding spaces …).",
          headers: { ...RATE_HEADERS, ...QUOTA_HEADERS },
          content: jsonContent(errorSchema([API_ERRORS.invalidIp]), {
            invalid_ip: errorExample(API_ERRORS.invalidIp, "GET /v1/ip-reputation-check?ip=1.2.3"),
          }),
        },
        "401": ref("responses", "Unauthorized"),
        "403": ref("responses", "Forbidden"),
        "429": tooManyRequests(
          "The key's rate limit or its monthly quota is used up. For the quota, `X-RateLimit-Reset` is the " +
            "seconds until the month ends (UTC).",
          { example: "Beyond the key's monthly quota of successful IP checks", headers: QUOTA_HEADERS },
        ),
        "500": ref("responses", "InternalError"),
      },
    },
  },
} satisfies PathOperations;
