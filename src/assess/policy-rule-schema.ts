import { Type } from "@sinclair/typebox";
import { Nullable, OneOf, StringEnum } from "../schema/json-schema.ts";
import { POLICY_LIMITS } from "./parse-policy.ts";
import { OPERATORS, POLICY_FIELDS } from "./policy-fields.ts";
import { DECISIONS, RULE_MODES } from "./policy-rule.ts";

/** A comparison of a field with a value; parse-policy.ts says which values each field and operator take. */
export const ComparisonSchema = Type.Object(
  {
    field: StringEnum(POLICY_FIELDS.map((f) => f.name)),
    op: StringEnum([...new Set(Object.values(OPERATORS).flat())]),
    value: Type.Unknown({ description: "A value, or a list for in, not_in, has_any and has_none (docs/assess.md)." }),
  },
  { $id: "Comparison", additionalProperties: false },
);

/**
 * A group inside a group is described by its shape only, not as the group's schema again: a
 * schema that refers to itself resolves into a cycle for client generators and validators, and
 * one written out level by level took Ajv most of a second to compile.
 */
const NestedGroup = Type.Object(
  {
    all: Type.Optional(Type.Array(Type.Unknown(), { minItems: 1 })),
    any: Type.Optional(Type.Array(Type.Unknown(), { minItems: 1 })),
  },
  {
    minProperties: 1,
    maxProperties: 1,
    description: `A group inside the group, of comparisons and groups (at most ${POLICY_LIMITS.depth} deep).`,
  },
);
const members = Type.Array(OneOf([ComparisonSchema, NestedGroup]), { minItems: 1 });

/** `{"all": [...]}` or `{"any": [...]}`, of comparisons and groups. */
export const ConditionGroupSchema = OneOf(
  [
    Type.Object({ all: members }, { additionalProperties: false }),
    Type.Object({ any: members }, { additionalProperties: false }),
  ],
  { $id: "ConditionGroup" },
);

/** A rule as a file or a request writes it; what is left out is filled in (the mode: shadow). */
export const RuleInputSchema = Type.Object(
  {
    id: Type.String({ pattern: "^[a-z0-9][a-z0-9_.-]{0,63}$" }),
    conditions: ConditionGroupSchema,
    decision: StringEnum(DECISIONS),
    reason: Type.String({ minLength: 1, maxLength: POLICY_LIMITS.reason }),
    author: Type.Optional(Type.String({ maxLength: POLICY_LIMITS.author, description: "Left out: the writer." })),
    created: Type.Optional(Type.String({ format: "date-time" })),
    expires: Type.Optional(
      Nullable(Type.String(), {
        description: "A day (YYYY-MM-DD, UTC, the day included) or an ISO 8601 instant; null or left out: never.",
      }),
    ),
    mode: Type.Optional(StringEnum(RULE_MODES, { description: "Left out: shadow." })),
  },
  { $id: "RuleInput", additionalProperties: false },
);

/** A rule as stored: every field there (policy-rule.ts's PolicyRule). */
export const StoredRuleProperties = {
  id: Type.String(),
  conditions: ConditionGroupSchema,
  decision: StringEnum(DECISIONS),
  reason: Type.String(),
  author: Type.String(),
  created: Type.String({ format: "date-time" }),
  expires: Nullable(Type.String({ format: "date-time" })),
  mode: StringEnum(RULE_MODES),
};
