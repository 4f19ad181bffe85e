import { type Static, Type } from "@sinclair/typebox";
import { ReadonlyArray, StringEnum } from "../../schema/json-schema.ts";
import { KIND_NAMES } from "./network-kinds.ts";

export const LEVELS = ["bad", "warning", "suspicious", "informative", "ok"] as const;
export type Level = (typeof LEVELS)[number];

/** Which rule set the level, first match wins. */
export const RULE_IDS = [
  "allowlisted",
  "denylisted",
  "confirmed-bad",
  "reports>=bad",
  "reports>=warning",
  "benign-cap",
  "reports>=suspicious",
  "kind-scanner",
  "reports>=informative",
  "kind-vpn-or-hosting",
  "nothing",
] as const;
export type RuleId = (typeof RULE_IDS)[number];

const count = Type.Integer({ minimum: 0 });

export const RuleSchema = Type.Object(
  {
    id: StringEnum(RULE_IDS),
    level: StringEnum(LEVELS),
    reports: Type.Integer({ minimum: 0, description: "The independent reports counted: the `sum`." }),
    threshold: Type.Optional(
      Type.Integer({ minimum: 1, description: "The threshold the reports reached, for the rules that compare them." }),
    ),
    capped: Type.Optional(
      Type.Object(
        { from: StringEnum(["bad", "warning"]), by: StringEnum(["verified-crawler", "relay", "anycast"]) },
        {
          description:
            "A verified crawler, a privacy relay's exit or anycast infrastructure is never more than suspicious: the " +
            "level the reports alone would give, and what capped it.",
        },
      ),
    ),
  },
  { additionalProperties: false, description: "The rule that set the level, first match wins." },
);
/** What set the level, with the threshold it passed, for `?explain=1`. */
export type Rule = Static<typeof RuleSchema>;

/** The spec's reputation object, keys in the spec's order; with `?explain=1` its `reasons` follow (ReputationReasons). */
export const ReputationSchema = Type.Object(
  {
    risky: Type.Boolean({ description: "True for `bad` and `warning`." }),
    reputation: StringEnum(LEVELS),
    bot: count,
    probe: count,
    rate: count,
    attack: count,
    crawler: count,
    sum: Type.Integer({ minimum: 0, description: "bot + probe + rate + attack + crawler" }),
    kind: ReadonlyArray(StringEnum(KIND_NAMES), { uniqueItems: true }),
  },
  { $id: "Reputation", additionalProperties: false },
);
export type Reputation = Readonly<Static<typeof ReputationSchema>>;
