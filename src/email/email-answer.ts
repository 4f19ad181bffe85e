import { parseEmailAddress } from "./address.ts";
import { classifyDomain } from "./classify.ts";
import type { DomainLists } from "./domain-lists.ts";
import type { EmailAnswer } from "./email-answer-schema.ts";
import { type FreeListNames, explainEmail } from "./explanation.ts";

/** The answer for `email` as given, or null when it is no valid address. */
export function emailAnswer(lists: DomainLists, email: string): EmailAnswer | null {
  const parsed = parseEmailAddress(email);
  if (parsed === null) return null;
  const verdict = classifyDomain(lists, parsed.domain);
  return { email, is_disposable: verdict.isDisposable, domain: parsed.domain, free_email: verdict.isFree };
}

/** JSON.stringify(answer), without its generic walk; a parsed domain is [a-z0-9.-] only, so it needs no escaping. */
export function emailAnswerJson(a: EmailAnswer): string {
  return `{"email":${JSON.stringify(a.email)},"is_disposable":${a.is_disposable},"domain":"${a.domain}","free_email":${a.free_email}}`;
}

/** The answer with the `reasons` that `?explain=1` adds, as JSON: what GET /v1/check, the batch and `scan --explain` give. */
export function explainedEmailAnswerJson(lists: DomainLists, a: EmailAnswer, free: FreeListNames): string {
  const { email, is_disposable, domain, free_email } = a;
  return JSON.stringify({
    email,
    is_disposable,
    domain,
    free_email,
    reasons: explainEmail(lists, email, domain, free, a.mail),
  });
}
