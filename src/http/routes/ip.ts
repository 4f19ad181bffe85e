import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { answerJson, privateAnswerJson } from "../../ip/answer/answer-json.ts";
import { explain } from "../../ip/verdict/explanation.ts";
import { answerObject, ipFacts } from "../../ip/answer/intelligence.ts";
import { parseIpAddress } from "../../ip/address/parse.ts";
import { isGlobalUnicast } from "../../ip/address/special-purpose.ts";
import { type AdmissionDeps, admit } from "../admission.ts";
import { API_ERRORS, errorResponse } from "../errors.ts";
import { answerHeaders } from "../limits.ts";
import { queryParam } from "../query.ts";

export interface IpCheckDeps extends AdmissionDeps {
  readonly snapshots: SnapshotHolder;
  readonly clientInfo: (request: Request, server: Bun.Server<unknown> | null) => { readonly address: string };
}

/** `server` tells the caller's own address, checked when the request names none. */
export function checkIp(deps: IpCheckDeps, request: Request, server: Bun.Server<unknown> | null): Response {
  const admitted = admit(deps, request, "ip");
  if (admitted instanceof Response) return admitted;
  const { key, nowMs } = admitted;

  const url = request.url;
  const param = queryParam(url, "ip");
  const parsed = param === "absent" ? parseIpAddress(deps.clientInfo(request, server).address) : typeof param === "object" ? parseIpAddress(param.value) : null;
  if (parsed === null) {
    deps.usage.record(key.id, "ip", "bad_request", nowMs);
    return errorResponse(API_ERRORS.invalidIp, answerHeaders(admitted.rate, admitted.quota, 0));
  }
  let body: string;
  if (!isGlobalUnicast(parsed)) {
    body = privateAnswerJson(parsed.text);
  } else {
    const snapshot = deps.snapshots.current();
    const facts = ipFacts(snapshot.ip, parsed);
    body = wantsExplanation(url)
      ? JSON.stringify({ ...answerObject(facts), reputation: { ...facts.reputation, reasons: explain(snapshot.ip, facts, parsed, snapshot.sources) } })
      : answerJson(facts);
  }

  // Counted only now that the check succeeded; synchronous from the quota check on, so
  // concurrent requests cannot overshoot.
  deps.limits.quota.countSuccess(key.id, nowMs);
  deps.usage.record(key.id, "ip", "ok", nowMs);
  return new Response(body, { headers: answerHeaders(admitted.rate, admitted.quota, 1) });
}

/** `?explain`, `?explain=1`, `=true` or `=yes` ask for the reasons; `=0`, `=false`, `=no` or anything else do not. */
function wantsExplanation(url: string): boolean {
  if (url.indexOf("explain") === -1) return false;
  const param = queryParam(url, "explain");
  return typeof param === "object" && EXPLAIN_VALUES.has(param.value.toLowerCase());
}

const EXPLAIN_VALUES = new Set(["", "1", "true", "yes"]);
