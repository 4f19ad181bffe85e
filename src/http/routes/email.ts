import { classifyDomain } from "../../email/classify.ts";
import { parseEmailAddress } from "../../email/address.ts";
import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { type AdmissionDeps, admit } from "../admission.ts";
import { API_ERRORS, errorResponse } from "../errors.ts";
import { answerHeaders } from "../limits.ts";
import { queryParam } from "../query.ts";

export function checkEmail(deps: AdmissionDeps & { snapshots: SnapshotHolder }, request: Request): Response {
  const admitted = admit(deps, request, "email");
  if (admitted instanceof Response) return admitted;
  const { key, nowMs } = admitted;

  const param = queryParam(request.url, "email");
  const parsed = typeof param === "object" && param.value !== "" ? parseEmailAddress(param.value) : null;
  if (parsed === null) {
    deps.usage.record(key.id, "email", "bad_request", nowMs);
    const missing = param === "absent" || (typeof param === "object" && param.value === "");
    return errorResponse(missing ? API_ERRORS.missingEmail : API_ERRORS.invalidEmail, answerHeaders(admitted.rate, null, 0));
  }
  const verdict = classifyDomain(deps.snapshots.current().email, parsed.domain);
  deps.usage.record(key.id, "email", "ok", nowMs);
  // What JSON.stringify of {email, is_disposable, domain, free_email} gives, without building
  // the object; a parsed domain is [a-z0-9.-] only, so it needs no escaping.
  const body = `{"email":${JSON.stringify((param as { value: string }).value)},"is_disposable":${verdict.isDisposable},"domain":"${parsed.domain}","free_email":${verdict.isFree}}`;
  return new Response(body, { headers: answerHeaders(admitted.rate, null, 0) });
}
