import { createHash } from "node:crypto";
import { kindBit } from "../ip/verdict/network-kinds.ts";
import { type AssessmentFacts, LEVELS_BY_RANK } from "./assessment-facts.ts";
import { DEFAULT_POLICY, defaultDecision } from "./default-policy.ts";
import { FIELDS_BY_NAME } from "./policy-fields.ts";
import {
  type Condition,
  type ConditionNode,
  type Decision,
  type PolicyRule,
  isActive,
  isGroup,
  membersOf,
} from "./policy-rule.ts";

type Test = (f: AssessmentFacts) => boolean;

interface CompiledRule {
  readonly rule: PolicyRule;
  readonly enforce: boolean;
  readonly test: Test;
}

/** What a policy made of one assessment's facts. */
export interface PolicyOutcome {
  readonly decision: Decision;
  /** The enforcing rule that decided; null when none matched and the score decided. */
  readonly rule: PolicyRule | null;
  /** The shadow rules that matched before any enforcing rule did: each would have decided, had it been enforcing. Null when none. */
  readonly shadow: readonly PolicyRule[] | null;
}

/**
 * The rules in force compiled into predicates, in order: an assessment walks them once and
 * stops at the first enforcing rule that matches, so a shadow rule placed after it is never
 * counted (it would not have decided). Built once per change of the rules, never per request.
 */
export class CompiledPolicy {
  /** `default-1`, or `default-1+` the first 8 hex digits of the rules' SHA-256: the same rules give the same version everywhere. */
  readonly version: string;
  readonly rules: readonly PolicyRule[];
  private readonly compiled: readonly CompiledRule[];

  constructor(rules: readonly PolicyRule[]) {
    this.rules = Object.freeze([...rules]);
    this.compiled = rules.map((rule) => ({
      rule,
      enforce: rule.mode === "enforce",
      test: compileNode(rule.conditions),
    }));
    this.version = rules.length === 0 ? DEFAULT_POLICY.version : `${DEFAULT_POLICY.version}+${digest(rules)}`;
  }

  /** The rules of `all` that apply at `nowMs`, compiled. */
  static inForce(all: readonly PolicyRule[], nowMs: number): CompiledPolicy {
    return new CompiledPolicy(all.filter((rule) => isActive(rule, nowMs)));
  }

  decide(f: AssessmentFacts): PolicyOutcome {
    let shadow: PolicyRule[] | null = null;
    for (const c of this.compiled) {
      if (!c.test(f)) continue;
      if (c.enforce) return { decision: c.rule.decision, rule: c.rule, shadow };
      (shadow ??= []).push(c.rule);
    }
    return { decision: defaultDecision(f.score), rule: null, shadow };
  }
}

export const DEFAULT_ONLY = new CompiledPolicy([]);

function digest(rules: readonly PolicyRule[]): string {
  const decisive = rules.map(({ id, conditions, decision, reason, mode }) => [id, conditions, decision, reason, mode]);
  return createHash("sha256").update(JSON.stringify(decisive)).digest("hex").slice(0, 8);
}

function compileNode(node: ConditionNode): Test {
  if (!isGroup(node)) return compileCondition(node);
  const tests = membersOf(node).map(compileNode);
  if (tests.length === 1) return tests[0];
  if ("all" in node)
    return (f) => {
      for (const t of tests) if (!t(f)) return false;
      return true;
    };
  return (f) => {
    for (const t of tests) if (t(f)) return true;
    return false;
  };
}

const RANK = new Map(LEVELS_BY_RANK.map((level, rank) => [level as string, rank]));

/** A comparison as a predicate; a value the request did not give (an absent side, no event) matches no comparison. */
function compileCondition({ field, op, value }: Condition): Test {
  const { read, type } = FIELDS_BY_NAME.get(field)!;
  const one = type === "level" ? (v: unknown) => RANK.get(v as string)! : (v: unknown) => v;
  if (type === "kinds") {
    const mask = Array.isArray(value)
      ? value.reduce((m: number, k: string) => m | kindBit(k), 0)
      : kindBit(value as string);
    if (op === "has_none")
      return (f) => {
        const kinds = read(f) as number | undefined;
        return kinds !== undefined && (kinds & mask) === 0;
      };
    return (f) => {
      const kinds = read(f) as number | undefined;
      return kinds !== undefined && (kinds & mask) !== 0;
    };
  }
  if (type === "domain" && op !== "equals") {
    const names = new Set(value as string[]);
    const covered = (domain: string) => {
      for (let at = 0; ; ) {
        if (names.has(at === 0 ? domain : domain.slice(at))) return true;
        const dot = domain.indexOf(".", at);
        if (dot === -1) return false;
        at = dot + 1;
      }
    };
    return op === "in"
      ? (f) => {
          const d = read(f) as string | undefined;
          return d !== undefined && covered(d);
        }
      : (f) => {
          const d = read(f) as string | undefined;
          return d !== undefined && !covered(d);
        };
  }
  switch (op) {
    case "is":
    case "equals": {
      const v = one(value);
      return (f) => read(f) === v;
    }
    case "at_least": {
      const v = one(value) as number;
      return (f) => {
        const x = read(f);
        return x !== undefined && (x as number) >= v;
      };
    }
    case "at_most": {
      const v = one(value) as number;
      return (f) => {
        const x = read(f);
        return x !== undefined && (x as number) <= v;
      };
    }
    case "in": {
      const set = new Set((value as unknown[]).map(one));
      return (f) => set.has(read(f));
    }
    case "not_in": {
      const set = new Set((value as unknown[]).map(one));
      return (f) => {
        const x = read(f);
        return x !== undefined && !set.has(x);
      };
    }
  }
  throw new Error(`no comparison ${op} on ${field}: the rule was not checked by parse-policy.ts`);
}
