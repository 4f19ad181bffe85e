import { Elysia } from "elysia";
import type { TrafficCounter } from "../../collection-pacer.ts";
import { emailAnswer, emailAnswerJson } from "../../email/email-answer.ts";
import { explainEmail } from "../../email/explanation.ts";
import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { type AdmissionDeps, admit } from "../admission.ts";
import { API_ERRORS } from "../errors.ts";
import { queryParam } from "../query.ts";
import { synchronous } from "../synchronous.ts";
import { wantsExplanation } from "./ip.ts";

export interface EmailCheckDeps extends AdmissionDeps {
  readonly snapshots: SnapshotHolder;
  readonly traffic: TrafficCounter;
}

/** `GET /v1/check?email=`. */
export function emailCheck(deps: EmailCheckDeps) {
  return new Elysia().get(
    "/v1/check",
    synchronous(({ request }: { request: Request }) => {
      deps.traffic.served++;
      return checkEmail(deps, request);
    }),
  );
}

export function checkEmail(deps: EmailCheckDeps, request: Request): Response {
  const admission = admit(deps, request, "email");
  if (admission instanceof Response) return admission;
  const url = request.url;
  const param = queryParam(url, "email");
  if (param === "absent" || (typeof param === "object" && param.value === "")) return admission.refuse(API_ERRORS.missingEmail);
  // A repeated or malformed parameter is no address.
  const email = typeof param === "object" ? param.value : "";
  const snapshot = deps.snapshots.current();
  const answer = emailAnswer(snapshot.email, email);
  if (answer === null) return admission.refuse(API_ERRORS.invalidEmail);
  if (wantsExplanation(url)) {
    const reasons = explainEmail(snapshot.email, email, answer.domain, { sources: snapshot.outputs["free-domains"]?.sources ?? [] });
    return admission.answer(0, JSON.stringify({ ...answer, reasons }));
  }
  return admission.answer(0, emailAnswerJson(answer));
}
