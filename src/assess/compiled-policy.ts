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
  return new Bun.CryptoHasher("sha256").update(JSON.stringify(decisive)).digest("hex").slice(0, 8);
}

/**
 * The rules as generated functions, one `if` per rule, each function at most CHUNK comparisons
 * long, which the JIT compiles into straight comparisons: 50 rules of the benchmark's shape cost
 * about 0.2 µs an assessment, where a tree of closures (one per rule, group and comparison) cost
 * 2.1–2.7 µs, as much as the two checks; 2,000 comparisons in one function stayed in the slower
 * tiers (2.8 ns each, against 0.13 ns chunked; docs/benchmarks.md). The generated text holds
 * only the fields' expressions from POLICY_FIELDS, operators, rule numbers and whole numbers;
 * every text value and list stays in `k` and is compared as data.
 *
 * A list (`in`, `not_in`) is not searched where a rule names it: each field that lists name is
 * looked up once an assessment, in one Map of all its lists' values, which marks the lists that
 * hold the value in `d` (a Set each cost 6 ns a comparison, 50 rules of country lists 0.3 µs).
 */
function compileDecide(rules: readonly PolicyRule[]): (f: AssessmentFacts) => PolicyOutcome {
  const c: Compilation = { k: [], lists: new Map(), listTests: 0, comparisons: 0 };
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
      )(c.k) as (f: AssessmentFacts, e: EmailSide | null, p: IpSide | null, d: Uint8Array, s: number[]) => number,
  );
  const holding = listsHolding(c);
  const shadows = rules.some((r) => r.mode === "shadow");
  const done = (f: AssessmentFacts, i: number, s: number[] | null): PolicyOutcome => ({
    decision: i === -1 ? defaultDecision(f.score) : rules[i].decision,
    rule: i === -1 ? null : rules[i],
    shadow: s === null || s.length === 0 ? null : s.map((j) => rules[j]),
  });
  return (f) => {
    const e = f.email;
    const p = f.ip;
    const d = holding(f, e, p);
    const s: number[] | null = shadows ? [] : null;
    for (const rules of functions) {
      const i = rules(f, e, p, d, s!);
      if (i !== -1) return done(f, i, s);
    }
    return done(f, -1, s);
  };
}

/** Comparisons in one generated function (a rule longer than this gets one of its own). */
const CHUNK = 128;

/** What the generated function refers to: constants by place in `k`, and each listed field's values, by list. */
interface Compilation {
  readonly k: unknown[];
  /** By field: a listed value → the lists (by their number, across all fields) that hold it. */
  readonly lists: Map<string, Map<unknown, number[]>>;
  listTests: number;
  comparisons: number;
}

type Holding = (f: AssessmentFacts, e: EmailSide | null, p: IpSide | null) => Uint8Array;

/**
 * Which lists hold the assessment's values: `d[j]` is 1 when list `j` holds its field's value
 * (for `email.domain`, the domain or a parent: "a.b.com", "b.com", "com"). Each listed field is
 * one Map read (a domain, one per name), and most assessments allocate nothing.
 */
function listsHolding({ lists, listTests }: Compilation): Holding {
  // What a value no list holds reads: never written.
  const inNoList = new Uint8Array(listTests);
  const mark = (d: Uint8Array, held: number[] | undefined): Uint8Array => {
    if (held === undefined) return d;
    const marked = d === inNoList ? new Uint8Array(listTests) : d;
    for (const j of held) marked[j] = 1;
    return marked;
  };
  const readers = [...lists].map(([name, values]) => {
    const { side, source, type } = FIELDS_BY_NAME.get(name)!;
    const guard = GUARDS[side];
    const read = new Function(
      "f",
      "e",
      "p",
      `"use strict"; return ${guard === "" ? "" : `!(${guard}) ? undefined : `}${source};`,
    ) as (f: AssessmentFacts, e: EmailSide | null, p: IpSide | null) => unknown;
    return { read, values, domain: type === "domain" };
  });
  const domains = readers.find((r) => r.domain)?.values as Map<string, number[]> | undefined;
  // Every listed name ends in one of these labels: a domain ending in another is in no list, nor is a parent of it.
  const lastLabels = new Set([...(domains?.keys() ?? [])].map((name) => name.slice(name.lastIndexOf(".") + 1)));
  const markDomain = (d: Uint8Array, domain: string): Uint8Array => {
    if (!lastLabels.has(domain.slice(domain.lastIndexOf(".") + 1))) return d;
    let marked = d;
    for (let from = 0; from !== -1; ) {
      marked = mark(marked, domains!.get(from === 0 ? domain : domain.slice(from)));
      const dot = domain.indexOf(".", from);
      from = dot === -1 ? -1 : dot + 1;
    }
    return marked;
  };
  return (f, e, p) => {
    let d: Uint8Array = inNoList;
    for (const { read, values, domain } of readers) {
      const value = read(f, e, p);
      if (value !== undefined) d = domain ? markDomain(d, value as string) : mark(d, values.get(value));
    }
    return d;
  };
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
      const j = c.listTests++;
      const values = c.lists.get(field) ?? new Map<unknown, number[]>();
      c.lists.set(field, values);
      for (const v of list()) values.set(v, [...(values.get(v) ?? []), j]);
      return `d[${j}] ${op === "in" ? "===" : "!=="} 1`;
    }
  }
  throw new Error(`no comparison ${op} on ${field}: the rule was not checked by parse-policy.ts`);
}
