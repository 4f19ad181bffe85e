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
