import { type Static, Type } from "@sinclair/typebox";
import { EmailAnswerSchema } from "../email/email-answer-schema.ts";
import { IpAnswerSchema } from "../ip/answer/ip-answer-schema.ts";
import { Nullable, OneOf, StringEnum } from "../schema/json-schema.ts";
import { DECISIONS, RULE_MODES } from "./policy-rule.ts";
import { REASON_CODES } from "./reason-codes.ts";

export const ReasonSchema = Type.Object(
  {
    code: StringEnum(REASON_CODES, { description: "Stable: docs/assess.md lists them." }),
    weight: Type.Integer({ minimum: 0, maximum: 100, description: "The points it adds to the score." }),
    fact: Type.String({ description: "What the reason stands on, in words." }),
  },
  { $id: "AssessmentReason", additionalProperties: false },
);

/** A rule as an answer names it: the one that decided, or one in shadow that would have. */
export const DecidingRuleSchema = Type.Object(
  {
    id: Type.String(),
    decision: StringEnum(DECISIONS),
    mode: StringEnum(RULE_MODES),
    reason: Type.String({ description: "The team's words for why the rule exists." }),
  },
  { $id: "DecidingRule", additionalProperties: false },
);

/**
 * The answer of POST/GET /v1/assess, keys in the order assessment-json.ts writes them (a test
 * holds the two alike): the decision, its score and reasons, the rule that decided, the policy's
 * version, the event, the two checks' answers, and with `?explain=1` the shadow rules.
 */
export const AssessmentSchema = Type.Object(
  {
    decision: StringEnum(DECISIONS),
    score: Type.Integer({ minimum: 0, maximum: 100, description: "The reasons' weights added up, at most 100." }),
    reasons: Type.Array(ReasonSchema),
    rule: OneOf([DecidingRuleSchema, Type.Null()], {
      description: "The enforcing rule that decided; null when the score did.",
    }),
    policy: Type.String({
      pattern: "^default-[0-9]+(\\+[0-9a-f]{8})?$",
      description: "The policy's version: the defaults', and a digest of the rules in force.",
    }),
    event: Nullable(Type.String(), { description: "The request's event label, in lower case; null without one." }),
    email: OneOf([EmailAnswerSchema, Type.Null()], { description: "As GET /v1/check answers; null without an email." }),
    ip: OneOf([IpAnswerSchema, Type.Null()], {
      description: "As GET /v1/ip-reputation-check answers; null without an address.",
    }),
    shadow: Type.Optional(
      Type.Array(DecidingRuleSchema, { description: "With `?explain=1`: the shadow rules that would have decided." }),
    ),
  },
  { $id: "Assessment", additionalProperties: false },
);
export type AssessmentAnswer = Static<typeof AssessmentSchema>;
