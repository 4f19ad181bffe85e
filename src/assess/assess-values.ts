import type { Answers, IpChecked } from "../checks/answers.ts";
import { CHECK_ERRORS, type ItemError, itemError } from "../checks/item-error.ts";
import type { EmailAnswer } from "../email/email-answer-schema.ts";
import type { ParsedIp } from "../ip/address/parse.ts";
import { EVENT } from "./parse-policy.ts";

/** What a request asks to assess: each value as sent (undefined: not sent), the IP address already parsed when it is the caller's own. */
export interface AssessRequest {
  readonly email?: unknown;
  readonly ip?: unknown;
  readonly event?: unknown;
}

/** The values of one assessment, checked as the two checks check them. */
export interface AssessValues {
  readonly email: EmailAnswer | null;
  readonly ip: IpChecked | null;
  /** In lower case; null when none was given. */
  readonly event: string | null;
}

/**
 * The answers an assessment is made from, or the error of the first value that cannot be
 * checked (the GET endpoints' errors; `missing_parameter` when there is neither value,
 * `invalid_event`): what POST/GET /v1/assess, the batch's `assess` items and their quota agree on.
 */
export function assessValues(
  answers: Answers,
  request: AssessRequest,
  input: unknown = request,
): AssessValues | ItemError {
  const given = (v: unknown) => v !== undefined && v !== null;
  if (!given(request.email) && !given(request.ip)) return itemError(input, CHECK_ERRORS.noValue);
  let event: string | null = null;
  if (given(request.event)) {
    if (typeof request.event !== "string" || !EVENT.test(request.event.toLowerCase()))
      return itemError(input, CHECK_ERRORS.invalidEvent);
    event = request.event.toLowerCase();
  }
  const email = given(request.email) ? answers.email(request.email) : null;
  if (email !== null && "error" in email) return itemError(input, CHECK_ERRORS.invalidEmail);
  const ip = !given(request.ip) ? null : isParsed(request.ip) ? answers.lookUp(request.ip) : answers.ip(request.ip);
  if (ip !== null && "error" in ip) return itemError(input, CHECK_ERRORS.invalidIp);
  return { email, ip, event };
}

/**
 * The values with what DNS says of the email's domain, as GET /v1/check answers it when DNS
 * evidence is on: a promise only when a lookup is needed; without DNS, `values` itself.
 */
export function withMailEvidence(answers: Answers, values: AssessValues): AssessValues | Promise<AssessValues> {
  if (values.email === null) return values;
  const email = answers.withMail(values.email);
  if (email instanceof Promise) return email.then((e) => ({ ...values, email: e }));
  return email === values.email ? values : { ...values, email };
}

const isParsed = (v: unknown): v is ParsedIp => typeof v === "object" && v !== null && "version" in v && "text" in v;
