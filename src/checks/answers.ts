import { type Snapshot, freeListNames } from "../datasets/snapshot.ts";
import { emailAnswer, emailAnswerJson, explainedEmailAnswerJson } from "../email/email-answer.ts";
import type { EmailAnswer } from "../email/email-answer-schema.ts";
import { explainEmail } from "../email/explanation.ts";
import type { MailEvidence } from "../email/mail-evidence.ts";
import { type ParsedIp, parseIpAddress } from "../ip/address/parse.ts";
import { explain } from "../ip/answer/explanation.ts";
import { answerFacts, answerJsonFrom } from "../ip/answer/ip-answer.ts";
import type { IpFacts } from "../ip/answer/ip-facts.ts";
import type { LocalReportView } from "../ip/verdict/local-reports.ts";
import { CLEAN_REPUTATION } from "../ip/verdict/reputation.ts";
import type { Reputation } from "../ip/verdict/reputation-schema.ts";
import { CHECK_ERRORS, type ItemError, itemError } from "./item-error.ts";

/** An IP address looked up: its answer is made from these when it is written. */
export interface IpChecked {
  readonly parsed: ParsedIp;
  /** Null for an address that is not global unicast (the private answer, which uses no quota). */
  readonly facts: IpFacts | null;
}

/** A batch item or scan cell as an address to look up, or its item error. */
export function ipItem(value: unknown): ParsedIp | ItemError {
  return (typeof value === "string" ? parseIpAddress(value) : null) ?? itemError(value, CHECK_ERRORS.invalidIp);
}

/**
 * Value in, answer or item error out, from one snapshot: what GET /v1/check, GET
 * /v1/ip-reputation-check, POST /v1/check/batch and `riskcheck scan` all answer with.
 */
export class Answers {
  constructor(
    private readonly snapshot: Snapshot,
    readonly explain: boolean,
    private readonly localReports: LocalReportView | null = null,
    /** DNS evidence, when a resolver is configured; null: the lists alone, no network. */
    private readonly mail: MailEvidence | null = null,
  ) {}

  email(value: unknown): EmailAnswer | ItemError {
    return (
      (typeof value === "string" ? emailAnswer(this.snapshot.email, value) : null) ??
      itemError(value, CHECK_ERRORS.invalidEmail)
    );
  }

  /**
   * The answer with what DNS says of a domain no list decided, when DNS evidence is on: a
   * promise only when a lookup is needed, settled within the budget. Without DNS, `a` itself.
   */
  withMail(a: EmailAnswer): EmailAnswer | Promise<EmailAnswer> {
    return this.mail === null ? a : this.mail.consult(this.snapshot.email, a);
  }

  /** Exactly the body of GET /v1/check for the address (with ?explain=1 when explaining). */
  emailJson(a: EmailAnswer): string {
    return this.explain
      ? explainedEmailAnswerJson(this.snapshot.email, a, freeListNames(this.snapshot))
      : emailAnswerJson(a);
  }

  /** The reasons ?explain=1 adds to the email answer, as JSON. */
  emailReasonsJson(a: EmailAnswer): string {
    return JSON.stringify(explainEmail(this.snapshot.email, a.email, a.domain, freeListNames(this.snapshot), a.mail));
  }

  ip(value: unknown): IpChecked | ItemError {
    const parsed = ipItem(value);
    return "error" in parsed ? parsed : this.lookUp(parsed);
  }

  /** An address already parsed (the caller's own, a batch's item counted against the quota) looked up. */
  lookUp(parsed: ParsedIp): IpChecked {
    return { parsed, facts: answerFacts(this.snapshot.ip, parsed, this.localReports) };
  }

  /** Exactly the body of GET /v1/ip-reputation-check for the address (with ?explain=1 when explaining). */
  ipJson(c: IpChecked): string {
    return answerJsonFrom(this.snapshot.ip, c.parsed, c.facts, this.explain ? this.snapshot.sources : null);
  }

  /** The reasons ?explain=1 adds, as JSON; "" for an address that has none (not global unicast). */
  ipReasonsJson(c: IpChecked): string {
    return c.facts === null ? "" : JSON.stringify(explain(this.snapshot.ip, c.facts, c.parsed, this.snapshot.sources));
  }
}

export function reputationOf(c: IpChecked): Reputation {
  return c.facts?.reputation ?? CLEAN_REPUTATION;
}
