import type { Snapshot } from "../datasets/snapshot.ts";
import { type EmailAnswer, emailAnswer } from "../email/email-answer.ts";
import { API_ERRORS } from "../http/errors.ts";
import { parseIpAddress } from "../ip/address/parse.ts";
import { type IpAnswer, ipAnswer } from "../ip/answer/ip-answer.ts";

/** An invalid value's place in an answer: the value, and the error the GET endpoint gives it. */
export interface ItemError {
  readonly input: unknown;
  readonly error: string;
  readonly message: string;
}

export const invalidEmailItem = (input: unknown): ItemError => ({ input, error: API_ERRORS.invalidEmail.error, message: API_ERRORS.invalidEmail.message });
export const invalidIpItem = (input: unknown): ItemError => ({ input, error: API_ERRORS.invalidIp.error, message: API_ERRORS.invalidIp.message });

export function isItemError(answer: EmailAnswer | IpAnswer | ItemError): answer is ItemError {
  return "error" in answer;
}

/** The GET endpoints' answers for one value each, from one snapshot: what the scan and the batch endpoint both use. */
export class Answers {
  constructor(
    private readonly snapshot: Snapshot,
    private readonly explain: boolean,
  ) {}

  email(value: unknown): EmailAnswer | ItemError {
    return (typeof value === "string" ? emailAnswer(this.snapshot.email, value) : null) ?? invalidEmailItem(value);
  }

  ip(value: unknown): IpAnswer | ItemError {
    const ip = typeof value === "string" ? parseIpAddress(value) : null;
    if (ip === null) return invalidIpItem(value);
    return ipAnswer(this.snapshot.ip, ip, this.explain ? this.snapshot.sources : null);
  }
}
