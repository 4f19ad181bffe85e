import { Elysia } from "elysia";
import type { TrafficCounter } from "../../collection-pacer.ts";
import { parseEmailAddress } from "../../email/address.ts";
import { classifyDomain } from "../../email/classify.ts";
import { explainEmail } from "../../email/explanation.ts";
import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { type AdmissionDeps, admit } from "../admission.ts";
import { API_ERRORS } from "../errors.ts";
import { queryParam, wantsExplanation } from "../query.ts";

export interface EmailCheckDeps extends AdmissionDeps {
  readonly snapshots: SnapshotHolder;
  readonly traffic: TrafficCounter;
}

/** `GET /v1/check?email=`. */
export function emailCheck(deps: EmailCheckDeps) {
  return new Elysia().get("/v1/check", ({ request }) => {
    deps.traffic.served++;
    return checkEmail(deps, request);
  });
}

export function checkEmail(deps: EmailCheckDeps, request: Request): Response {
  const admission = admit(deps, request, "email");
  if (admission instanceof Response) return admission;
  const url = request.url;
  const param = queryParam(url, "email");
  if (param === "absent" || (typeof param === "object" && param.value === "")) return admission.refuse(API_ERRORS.missingEmail);
  // A repeated or malformed parameter is no address.
  const email = typeof param === "object" ? param.value : "";
  const parsed = parseEmailAddress(email);
  if (parsed === null) return admission.refuse(API_ERRORS.invalidEmail);
  const snapshot = deps.snapshots.current();
  const verdict = classifyDomain(snapshot.email, parsed.domain);
  if (wantsExplanation(url)) {
    const reasons = explainEmail(snapshot.email, email, parsed.domain, { sources: snapshot.outputs["free-domains"]?.sources ?? [] });
    return admission.answer(0, JSON.stringify({ email, is_disposable: verdict.isDisposable, domain: parsed.domain, free_email: verdict.isFree, reasons }));
  }
  // What JSON.stringify of {email, is_disposable, domain, free_email} gives, without building
  // the object; a parsed domain is [a-z0-9.-] only, so it needs no escaping.
  return admission.answer(0, `{"email":${JSON.stringify(email)},"is_disposable":${verdict.isDisposable},"domain":"${parsed.domain}","free_email":${verdict.isFree}}`);
}
