export const DECISIONS = ["allow", "challenge", "block"] as const;
export type Decision = (typeof DECISIONS)[number];

/** `enforce`: the first enforcing rule that matches decides. `shadow`: evaluated and counted, never deciding. */
export const RULE_MODES = ["enforce", "shadow"] as const;
export type RuleMode = (typeof RULE_MODES)[number];

/** One comparison of a field with a value, the value as normalised by parse-policy.ts. */
export interface Condition {
  readonly field: string;
  readonly op: string;
  readonly value: unknown;
}

/** Conditions that must all hold, or of which one must. */
export type ConditionGroup = { readonly all: readonly ConditionNode[] } | { readonly any: readonly ConditionNode[] };
export type ConditionNode = Condition | ConditionGroup;

/** An operator's rule, as stored and as a policy file writes it. */
export interface PolicyRule {
  /** The rule's name, unique in the set: lower-case letters, digits, `-`, `_`, `.`. */
  readonly id: string;
  readonly conditions: ConditionGroup;
  readonly decision: Decision;
  /** Why the rule exists, in the team's words: the answer's `rule.reason`. */
  readonly reason: string;
  /** Who wrote it: the CLI's user or `--author`, `dashboard`, an API key's name, or the file's word. */
  readonly author: string;
  /** ISO 8601 instant. */
  readonly created: string;
  /** From this instant on the rule no longer applies; null: until removed. */
  readonly expires: string | null;
  readonly mode: RuleMode;
}

export const isGroup = (node: ConditionNode): node is ConditionGroup => !("field" in node);
export const membersOf = (group: ConditionGroup): readonly ConditionNode[] => ("all" in group ? group.all : group.any);

export function isActive(rule: PolicyRule, nowMs: number): boolean {
  return rule.expires === null || Date.parse(rule.expires) > nowMs;
}
