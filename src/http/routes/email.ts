import { Elysia } from "elysia";
import type { TrafficCounter } from "../../metrics/traffic-counter.ts";
import { Answers } from "../../checks/answers.ts";
import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { type AdmissionDeps, type AdmissionRule, admit } from "../admission.ts";
import { API_ERRORS } from "../errors.ts";
import { queryParam, wantsExplanation } from "../query.ts";
import { synchronous } from "../synchronous.ts";

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

/** A key with `check`; an email check uses no quota. */
const EMAIL_CHECK: AdmissionRule = { permission: "check", usage: "email" };

export function checkEmail(deps: EmailCheckDeps, request: Request): Response {
  const admission = admit(deps, request, EMAIL_CHECK);
  if (admission instanceof Response) return admission;
  const url = request.url;
  const param = queryParam(url, "email");
  if (param === "absent" || (typeof param === "object" && param.value === ""))
    return admission.refuse(API_ERRORS.missingEmail);
  // A repeated or malformed parameter is no address.
  const email = typeof param === "object" ? param.value : "";
  const answers = new Answers(deps.snapshots.current(), wantsExplanation(url));
  const answer = answers.email(email);
  if ("error" in answer) return admission.refuse(API_ERRORS.invalidEmail);
  return admission.answer(0, answers.emailJson(answer));
}
