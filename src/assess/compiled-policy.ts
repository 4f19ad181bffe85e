import { createHash } from "node:crypto";
import { kindBit } from "../ip/verdict/network-kinds.ts";
import type { AssessmentFacts, EmailSide, IpSide } from "./assessment-facts.ts";
import { LEVELS_BY_RANK } from "./level-ranks.ts";
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

/** What a policy made of one assessment's facts. */
export interface PolicyOutcome {
  readonly decision: Decision;
  /** The enforcing rule that decided; null when none matched and the score decided. */
  readonly rule: PolicyRule | null;
  /** The shadow rules that matched before any enforcing rule did: each would have decided, had it been enforcing. Null when none. */
  readonly shadow: readonly PolicyRule[] | null;
}

/**
 * The rules in force compiled into one function, in order: an assessment walks them once and
 * stops at the first enforcing rule that matches, so a shadow rule placed after it is never
 * counted (it would not have decided). Built once per change of the rules, never per request.
 */
export class CompiledPolicy {
  /** `default-1`, or `default-1+` the first 8 hex digits of the rules' SHA-256: the same rules give the same version everywhere. */
  readonly version: string;
  readonly rules: readonly PolicyRule[];
  readonly decide: (f: AssessmentFacts) => PolicyOutcome;
  /** The event labels the rules name: the ones counted apart (policy-counts.ts). */
  readonly events: ReadonlySet<string>;

  constructor(rules: readonly PolicyRule[]) {
    this.rules = Object.freeze([...rules]);
    this.events = new Set(rules.flatMap((r) => eventsIn(r.conditions)));
    this.decide = compileDecide(this.rules);
    this.version = rules.length === 0 ? DEFAULT_POLICY.version : `${DEFAULT_POLICY.version}+${digest(rules)}`;
  }

  /** The rules of `all` that apply at `nowMs`, compiled. */
  static inForce(all: readonly PolicyRule[], nowMs: number): CompiledPolicy {
    return new CompiledPolicy(all.filter((rule) => isActive(rule, nowMs)));
  }
}

export const DEFAULT_ONLY = new CompiledPolicy([]);

function eventsIn(node: ConditionNode): string[] {
  if (isGroup(node)) return membersOf(node).flatMap(eventsIn);
  return node.field !== "event" ? [] : Array.isArray(node.value) ? (node.value as string[]) : [node.value as string];
}

function digest(rules: readonly PolicyRule[]): string {
  const decisive = rules.map(({ id, conditions, decision, reason, mode }) => [id, conditions, decision, reason, mode]);
  return createHash("sha256").update(JSON.stringify(decisive)).digest("hex").slice(0, 8);
}

/**
 * The rules as generated functions, one `if` per rule, each function at most CHUNK comparisons
 * long, which the JIT compiles into straight comparisons: 50 rules of the benchmark's shape cost
 * about 0.5 µs an assessment, where a tree of closures (one per rule, group and comparison) cost
 * 2.1–2.7 µs, as much as the two checks; 2,000 comparisons in one function stayed in the slower
 * tiers (2.8 ns each, against 0.13 ns chunked; docs/benchmarks.md). The generated text holds
 * only the fields' expressions from POLICY_FIELDS, operators, rule numbers and whole numbers;
 * every text value and list stays in `k` and is compared as data.
 */
function compileDecide(rules: readonly PolicyRule[]): (f: AssessmentFacts) => PolicyOutcome {
  const c: Compilation = { k: [], domains: new Map(), domainTests: 0, comparisons: 0 };
  const chunks: string[][] = [];
  let size = Number.POSITIVE_INFINITY;
  rules.forEach((rule, i) => {
    const before = c.comparisons;
    const condition = expressionOf(rule.conditions, c);
    const test = rule.mode === "enforce" ? `if (${condition}) return ${i};` : `if (${condition}) s.push(${i});`;
    size += c.comparisons - before;
    if (size > CHUNK) {
      chunks.push([]);
      size = c.comparisons - before;
    }
    chunks.at(-1)!.push(test);
  });
  const functions = chunks.map(
    (tests) =>
      new Function(
        "k",
        `"use strict"; return function rules(f, e, p, d, s) {\n  ${tests.join("\n  ")}\n  return -1;\n};`,
      )(c.k) as (
        f: AssessmentFacts,
        e: EmailSide | null,
        p: IpSide | null,
        d: Uint8Array | null,
        s: number[],
      ) => number,
  );
  const { domains, domainTests } = c;
  const shadows = rules.some((r) => r.mode === "shadow");
  const done = (f: AssessmentFacts, i: number, s: number[] | null): PolicyOutcome => ({
    decision: i === -1 ? defaultDecision(f.score) : rules[i].decision,
    rule: i === -1 ? null : rules[i],
    shadow: s === null || s.length === 0 ? null : s.map((j) => rules[j]),
  });
  // What a domain no list holds reads: never written, so most rows allocate nothing for the lists.
  const inNoList = new Uint8Array(domainTests);
  // Every listed name ends in one of these labels: a domain ending in another is in no list, nor is a parent of it.
  const lastLabels = new Set([...domains.keys()].map((name) => name.slice(name.lastIndexOf(".") + 1)));
  /** Which of the rules' domain lists hold the domain or a parent ("a.b.com", "b.com", "com"): one Map read per name. */
  const listsHolding = (domain: string): Uint8Array => {
    if (!lastLabels.has(domain.slice(domain.lastIndexOf(".") + 1))) return inNoList;
    let d = inNoList;
    for (let from = 0; from !== -1; ) {
      const lists = domains.get(from === 0 ? domain : domain.slice(from));
      if (lists !== undefined) {
        if (d === inNoList) d = new Uint8Array(domainTests);
        for (const j of lists) d[j] = 1;
      }
      const dot = domain.indexOf(".", from);
      from = dot === -1 ? -1 : dot + 1;
    }
    return d;
  };
  return (f) => {
    const e = f.email;
    const d = domainTests !== 0 && e !== null ? listsHolding(e.domain) : null;
    const s: number[] | null = shadows ? [] : null;
    for (const rules of functions) {
      const i = rules(f, e, f.ip, d, s!);
      if (i !== -1) return done(f, i, s);
    }
    return done(f, -1, s);
  };
}

/** Comparisons in one generated function (a rule longer than this gets one of its own). */
const CHUNK = 128;

/** What the generated function refers to: constants by place in `k`, and each domain list's names, by list. */
interface Compilation {
  readonly k: unknown[];
  /** A listed name → the domain lists (by their number) that hold it. */
  readonly domains: Map<string, number[]>;
  domainTests: number;
  comparisons: number;
}

const RANK = new Map(LEVELS_BY_RANK.map((level, rank) => [level as string, rank]));
const GUARDS = { event: "f.event !== null", email: "e !== null", ip: "p !== null", always: "" } as const;

function expressionOf(node: ConditionNode, c: Compilation): string {
  if (isGroup(node))
    return `(${membersOf(node)
      .map((m) => expressionOf(m, c))
      .join("all" in node ? " && " : " || ")})`;
  const guard = GUARDS[FIELDS_BY_NAME.get(node.field)!.side];
  const comparison = comparisonOf(node, c);
  c.comparisons++;
  return guard === "" ? `(${comparison})` : `(${guard} && ${comparison})`;
}

/** A comparison as source: a value the request did not give (an absent side, no event) is left to the guard. */
function comparisonOf({ field, op, value }: Condition, c: Compilation): string {
  const { source: x, type } = FIELDS_BY_NAME.get(field)!;
  const constant = (v: unknown) => `k[${c.k.push(v) - 1}]`;
  const number = (v: unknown) => {
    const n = type === "level" ? RANK.get(v as string)! : (v as number);
    if (!Number.isSafeInteger(n)) throw new Error(`${field}: ${String(v)} is not a checked value`);
    return String(n);
  };
  const list = () => (value as unknown[]).map((v) => (type === "level" ? RANK.get(v as string) : v));
  if (type === "kinds") {
    const mask = Array.isArray(value)
      ? value.reduce((m: number, v: string) => m | kindBit(v), 0)
      : kindBit(value as string);
    return `(${x} & ${mask}) ${op === "has_none" ? "===" : "!=="} 0`;
  }
  switch (op) {
    case "is":
      return `${x} === ${value === true}`;
    case "equals":
      return type === "number" || type === "asn" || type === "level"
        ? `${x} === ${number(value)}`
        : `${x} === ${constant(value)}`;
    case "at_least":
      return `${x} >= ${number(value)}`;
    case "at_most":
      return `${x} <= ${number(value)}`;
    case "in":
    case "not_in": {
      if (type === "domain") {
        const j = c.domainTests++;
        for (const name of value as string[]) c.domains.set(name, [...(c.domains.get(name) ?? []), j]);
        return `d[${j}] ${op === "in" ? "===" : "!=="} 1`;
      }
      return `${op === "in" ? "" : "!"}${constant(new Set(list()))}.has(${x})`;
    }
  }
  throw new Error(`no comparison ${op} on ${field}: the rule was not checked by parse-policy.ts`);
}
