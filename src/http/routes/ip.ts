import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { answerFor, privateAnswer } from "../../ip/intelligence.ts";
import { parseIpAddress } from "../../ip/parse.ts";
import { isGlobalUnicast } from "../../ip/special-purpose.ts";
import { type AdmissionDeps, admit } from "../admission.ts";
import { API_ERRORS, errorResponse } from "../errors.ts";
import { setQuotaRemaining } from "../limits.ts";
import { queryParam } from "../query.ts";

export function checkIp(deps: AdmissionDeps & { snapshots: SnapshotHolder }, request: Request, bearer: string | undefined, callerAddress: () => string): Response {
  const admitted = admit(deps, request, bearer, "ip");
  if (admitted instanceof Response) return admitted;
  const { key, nowMs, headers, quota } = admitted;

  const url = request.url;
  const param = queryParam(url, "ip");
  const parsed = param === "absent" ? parseIpAddress(callerAddress()) : typeof param === "object" ? parseIpAddress(param.value) : null;
  if (parsed === null) {
    deps.usage.record(key.id, "ip", "bad_request", nowMs);
    setQuotaRemaining(headers, quota, false);
    return errorResponse(API_ERRORS.invalidIp, headers);
  }
  const explain = url.indexOf("explain=") !== -1 && queryParam(url, "explain") !== "absent";
  const answer = isGlobalUnicast(parsed) ? answerFor(deps.snapshots.current().ip, parsed, explain) : privateAnswer(parsed.text);

  // Counted only now that the check succeeded; synchronous from the quota check on, so
  // concurrent requests cannot overshoot.
  deps.limits.quota.countSuccess(key.id, nowMs);
  deps.usage.record(key.id, "ip", "ok", nowMs);
  setQuotaRemaining(headers, quota, true);
  return new Response(JSON.stringify(answer), { headers });
}
