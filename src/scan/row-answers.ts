import { type Snapshot, freeListNames } from "../datasets/snapshot.ts";
import { type EmailAnswer, emailAnswer, emailAnswerJson, explainedEmailAnswerJson } from "../email/email-answer.ts";
import { type FreeListNames, explainEmail } from "../email/explanation.ts";
import { API_ERRORS } from "../http/errors.ts";
import { type ParsedIp, parseIpAddress } from "../ip/address/parse.ts";
import { explain } from "../ip/answer/explanation.ts";
import { answerFacts, answerJsonFrom } from "../ip/answer/ip-answer.ts";
import type { IpFacts } from "../ip/answer/ip-facts.ts";
import type { LocalReportView } from "../ip/verdict/local-reports.ts";
import { CLEAN_REPUTATION, type Reputation } from "../ip/verdict/reputation.ts";

/** An invalid value's place in an answer: the value, and the error the GET endpoint gives it. */
export interface ItemError {
  readonly input: unknown;
  readonly error: string;
  readonly message: string;
}

/** An IP address looked up: its answer is made from these when it is written. */
export interface IpChecked {
  readonly parsed: ParsedIp;
  /** Null for an address that is not global unicast (the private answer). */
  readonly facts: IpFacts | null;
}

const invalidEmail = (input: unknown): ItemError => ({ input, error: API_ERRORS.invalidEmail.error, message: API_ERRORS.invalidEmail.message });
const invalidIp = (input: unknown): ItemError => ({ input, error: API_ERRORS.invalidIp.error, message: API_ERRORS.invalidIp.message });

/** The GET endpoints' answers for one value each, from one snapshot, with the functions the endpoints use. */
export class Answers {
  private readonly free: FreeListNames;

  constructor(
    private readonly snapshot: Snapshot,
    readonly explain: boolean,
    private readonly localReports: LocalReportView | null = null,
  ) {
    this.free = freeListNames(snapshot);
  }

  email(value: string): EmailAnswer | ItemError {
    return emailAnswer(this.snapshot.email, value) ?? invalidEmail(value);
  }

  /** Exactly the body of GET /v1/check for the address (with ?explain=1 when explaining). */
  emailJson(a: EmailAnswer): string {
    return this.explain ? explainedEmailAnswerJson(this.snapshot.email, a, this.free) : emailAnswerJson(a);
  }

  /** The reasons ?explain=1 adds to the email answer, as JSON. */
  emailReasonsJson(a: EmailAnswer): string {
    return JSON.stringify(explainEmail(this.snapshot.email, a.email, a.domain, this.free));
  }

  ip(value: string): IpChecked | ItemError {
    const parsed = parseIpAddress(value);
    if (parsed === null) return invalidIp(value);
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
