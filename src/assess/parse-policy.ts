import { normaliseDomain } from "../email/domain-name.ts";
import { KIND_NAMES } from "../ip/verdict/network-kinds.ts";
import { parseDateText, untilMs } from "../time/calendar-date.ts";
import { LEVELS_BY_RANK } from "./level-ranks.ts";
import { FIELDS_BY_NAME, type FieldType, OPERATORS, POLICY_FIELDS } from "./policy-fields.ts";
import {
  type Condition,
  type ConditionGroup,
  type ConditionNode,
  DECISIONS,
  type Decision,
  type PolicyRule,
  RULE_MODES,
  type RuleMode,
  isGroup,
  membersOf,
} from "./policy-rule.ts";

/** What one rule set may hold: a set beyond any of these is refused whole. */
export const POLICY_LIMITS = Object.freeze({
  rules: 500,
  /** Comparisons in one rule, nested groups' included. */
  conditions: 64,
  /** Comparisons in the whole set: what one assessment may have to make (about 3 µs at most, measured). */
  comparisons: 5_000,
  /** Groups inside groups, the rule's own counted. */
  depth: 4,
  /** Values in one `in`, `not_in`, `has_any` or `has_none` list. */
  values: 10_000,
  /** The whole set as JSON, in bytes. */
  bytes: 1024 * 1024,
  reason: 500,
  author: 200,
});

const ID = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
/** An event label as a request sends it and a rule names it, compared in lower case. */
export const EVENT = /^[a-z0-9][a-z0-9_.:-]{0,63}$/;

/** One thing wrong with a rule set: the rule (its id or, when it has none, its place), the field, what is wrong. */
export interface PolicyProblem {
  /** 0-based place in the set; null for a problem of the whole set, or of a rule given on its own. */
  readonly index: number | null;
  readonly rule: string | null;
  /** Where in the rule: `decision`, `conditions.all[1].field`; the set's own key for a problem of the whole set. */
  readonly path: string;
  readonly message: string;
}

/** A rule set refused as a whole, with every problem found. */
export class PolicyError extends Error {
  constructor(readonly problems: readonly PolicyProblem[]) {
    super(
      problems.slice(0, 5).map(problemText).join("; ") +
        (problems.length > 5 ? `; and ${problems.length - 5} more` : ""),
    );
  }
}

export function problemText(p: PolicyProblem): string {
  const place = p.index === null ? "" : ` (#${p.index + 1})`;
  const where = p.rule !== null ? `rule "${p.rule}"${place}: ` : p.index !== null ? `rule #${p.index + 1}: ` : "";
  return `${where}${p.path}: ${p.message}`;
}

/** What a rule takes from whoever writes it when it does not say: the author, and the time. */
export interface RuleDefaults {
  readonly author: string;
  readonly nowMs: number;
  /** Rules read back from the store: an expiry that has passed is kept (the rule no longer applies), not refused. */
  readonly stored?: boolean;
}

type Problems = PolicyProblem[];
type Note = (path: string, message: string) => void;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const describe = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "a list" : typeof v);

/**
 * A policy file's or an admin request's rule set, `{"rules": [...]}`, checked whole: every
 * problem is collected, then the set is refused with all of them (PolicyError), or returned
 * normalised (values canonical, defaults filled in).
 */
export function parseRuleSet(input: unknown, defaults: RuleDefaults): PolicyRule[] {
  const problems: Problems = [];
  const setNote: Note = (path, message) => problems.push({ index: null, rule: null, path, message });
  if (!isObject(input))
    throw new PolicyError([{ index: null, rule: null, path: "(set)", message: 'an object, {"rules": [...]}' }]);
  for (const key of Object.keys(input)) if (key !== "rules") setNote(key, 'unknown key: a rule set has "rules" only');
  const list = input.rules;
  if (!Array.isArray(list)) {
    setNote("rules", `a list of rules, not ${describe(list)}`);
    throw new PolicyError(problems);
  }
  if (list.length > POLICY_LIMITS.rules) {
    setNote("rules", `${list.length} rules: at most ${POLICY_LIMITS.rules}`);
    throw new PolicyError(problems);
  }
  const rules = list.map((raw, index) => checkRule(raw, index, defaults, problems));
  problems.push(...setProblems(rules));
  if (problems.length > 0) throw new PolicyError(problems);
  return rules as PolicyRule[];
}

/** Rules already checked one by one (a rule added to a stored set), checked as a set: the limits, unique ids. */
export function checkRuleSet(rules: readonly PolicyRule[]): void {
  const problems = setProblems(rules);
  if (problems.length > 0) throw new PolicyError(problems);
}

/** What is wrong with the rules as a set; a null stands for a rule refused on its own. */
function setProblems(rules: readonly (PolicyRule | null)[]): Problems {
  const problems: Problems = [];
  const setNote: Note = (path, message) => problems.push({ index: null, rule: null, path, message });
  if (rules.length > POLICY_LIMITS.rules) setNote("rules", `${rules.length} rules: at most ${POLICY_LIMITS.rules}`);
  const comparisons = rules.reduce((n, rule) => n + (rule === null ? 0 : comparisonsIn(rule.conditions)), 0);
  if (comparisons > POLICY_LIMITS.comparisons)
    setNote(
      "rules",
      `${comparisons.toLocaleString("en")} comparisons in all: at most ${POLICY_LIMITS.comparisons.toLocaleString("en")}`,
    );
  const seen = new Map<string, number>();
  rules.forEach((rule, index) => {
    if (rule === null) return;
    const first = seen.get(rule.id);
    if (first !== undefined)
      problems.push({ index, rule: rule.id, path: "id", message: `the id of rule #${first + 1} too: ids are unique` });
    else seen.set(rule.id, index);
  });
  if (problems.length === 0 && !rules.includes(null)) {
    const bytes = Buffer.byteLength(JSON.stringify({ rules }));
    if (bytes > POLICY_LIMITS.bytes)
      setNote(
        "rules",
        `${bytes.toLocaleString("en")} bytes as JSON: at most ${POLICY_LIMITS.bytes.toLocaleString("en")}`,
      );
  }
  return problems;
}

/** A policy file's text: JSON, then `parseRuleSet`. */
export function parseRuleSetText(text: string, defaults: RuleDefaults): PolicyRule[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new PolicyError([
      { index: null, rule: null, path: "(file)", message: `not JSON: ${(err as Error).message}` },
    ]);
  }
  return parseRuleSet(value, defaults);
}

function comparisonsIn(node: ConditionNode): number {
  return isGroup(node) ? membersOf(node).reduce((n, m) => n + comparisonsIn(m), 0) : 1;
}

/** One rule, checked as it would be in a set at `index` (null: a rule given on its own, to add or replace one). */
export function parseRule(input: unknown, index: number | null, defaults: RuleDefaults): PolicyRule {
  const problems: Problems = [];
  const rule = checkRule(input, index, defaults, problems);
  if (rule === null || problems.length > 0) throw new PolicyError(problems);
  return rule;
}

const RULE_KEYS = new Set(["id", "conditions", "decision", "reason", "author", "created", "expires", "mode"]);

function checkRule(raw: unknown, index: number | null, defaults: RuleDefaults, problems: Problems): PolicyRule | null {
  const id = isObject(raw) && typeof raw.id === "string" && ID.test(raw.id) ? raw.id : null;
  const note: Note = (path, message) => problems.push({ index, rule: id, path, message });
  if (!isObject(raw)) {
    note("(rule)", `an object, not ${describe(raw)}`);
    return null;
  }
  const before = problems.length;
  for (const key of Object.keys(raw))
    if (!RULE_KEYS.has(key)) note(key, `unknown key; a rule has ${[...RULE_KEYS].join(", ")}`);
  if (id === null)
    note("id", "a name of 1 to 64 lower-case letters, digits, '-', '_' or '.', starting with a letter or digit");
  const decision = oneOf(raw.decision, DECISIONS, "decision", note);
  const mode = raw.mode === undefined ? "shadow" : oneOf(raw.mode, RULE_MODES, "mode", note);
  const reason = text(raw.reason, "reason", POLICY_LIMITS.reason, note, true);
  const author =
    raw.author === undefined ? defaults.author : text(raw.author, "author", POLICY_LIMITS.author, note, true);
  const created = raw.created === undefined ? new Date(defaults.nowMs).toISOString() : instant(raw.created, note);
  const expires =
    raw.expires === undefined || raw.expires === null
      ? null
      : expiry(raw.expires, defaults.stored ? Number.NEGATIVE_INFINITY : defaults.nowMs, note);
  const conditions = checkConditions(raw.conditions, note);
  if (problems.length > before) return null;
  return {
    id: id!,
    conditions: conditions!,
    decision: decision as Decision,
    reason: reason!,
    author: author!,
    created: created!,
    expires,
    mode: mode as RuleMode,
  };
}

function oneOf<T extends string>(v: unknown, values: readonly T[], path: string, note: Note): T | null {
  if (typeof v === "string" && (values as readonly string[]).includes(v)) return v as T;
  note(path, `${v === undefined ? "missing" : (JSON.stringify(v) ?? describe(v))}; one of ${values.join(", ")}`);
  return null;
}

function text(v: unknown, path: string, max: number, note: Note, required: boolean): string | null {
  if (typeof v !== "string" || (required && v.trim() === "")) {
    note(path, path === "reason" ? "say why the rule exists: a text the answer and the audit log repeat" : "a text");
    return null;
  }
  const trimmed = v.trim();
  if (trimmed.length > max) note(path, `at most ${max} characters`);
  else if (!trimmed.isWellFormed() || /[\u0000-\u001f\u007f]/.test(trimmed))
    note(path, "text without control characters");
  else return trimmed;
  return null;
}

function instant(v: unknown, note: Note): string | null {
  const date = typeof v === "string" ? parseDateText(v) : null;
  if (date !== null && !date.day) return new Date(date.ms).toISOString();
  note("created", "an ISO 8601 instant with its offset");
  return null;
}

function expiry(v: unknown, nowMs: number, note: Note): string | null {
  const date = typeof v === "string" ? parseDateText(v) : null;
  if (date === null) {
    note("expires", "a day (YYYY-MM-DD, a day that exists, the day included) or an ISO 8601 instant with its offset");
    return null;
  }
  const ms = untilMs(date);
  if (ms <= nowMs) {
    note("expires", `${v} has already passed`);
    return null;
  }
  return new Date(ms).toISOString();
}

function checkConditions(v: unknown, note: Note): ConditionGroup | null {
  if (v === undefined) {
    note("conditions", 'missing: {"all": [...]} or {"any": [...]}');
    return null;
  }
  const count = { leaves: 0 };
  const group = checkGroup(v, "conditions", 1, count, note);
  if (count.leaves > POLICY_LIMITS.conditions)
    note("conditions", `${count.leaves} comparisons: at most ${POLICY_LIMITS.conditions} in one rule`);
  return group;
}

function checkGroup(
  v: unknown,
  path: string,
  depth: number,
  count: { leaves: number },
  note: Note,
): ConditionGroup | null {
  const keys = isObject(v) ? Object.keys(v) : [];
  if (!isObject(v) || keys.length !== 1 || (keys[0] !== "all" && keys[0] !== "any")) {
    note(
      path,
      `{"all": [...]} or {"any": [...]}, one of the two, not ${isObject(v) ? `{${keys.join(", ")}}` : describe(v)}`,
    );
    return null;
  }
  if (depth > POLICY_LIMITS.depth) {
    note(path, `groups nested deeper than ${POLICY_LIMITS.depth}`);
    return null;
  }
  const key = keys[0] as "all" | "any";
  const members = v[key];
  if (!Array.isArray(members) || members.length === 0) {
    note(`${path}.${key}`, "a list of at least one condition");
    return null;
  }
  const nodes: (ConditionNode | null)[] = members.slice(0, POLICY_LIMITS.conditions + 1).map((m, i) => {
    const at = `${path}.${key}[${i}]`;
    if (isObject(m) && !("field" in m)) return checkGroup(m, at, depth + 1, count, note);
    count.leaves++;
    return checkCondition(m, at, note);
  });
  if (nodes.includes(null)) return null;
  return key === "all" ? { all: nodes as ConditionNode[] } : { any: nodes as ConditionNode[] };
}

const CONDITION_KEYS = new Set(["field", "op", "value"]);
const LIST_OPS = new Set(["in", "not_in", "has_any", "has_none"]);

function checkCondition(v: unknown, path: string, note: Note): Condition | null {
  if (!isObject(v)) {
    note(path, `a condition {"field", "op", "value"} or a group, not ${describe(v)}`);
    return null;
  }
  const unknown = Object.keys(v).filter((k) => !CONDITION_KEYS.has(k));
  if (unknown.length > 0) {
    note(`${path}.${unknown[0]}`, 'unknown key; a condition has "field", "op" and "value"');
    return null;
  }
  const field = typeof v.field === "string" ? FIELDS_BY_NAME.get(v.field) : undefined;
  if (field === undefined) {
    const what = v.field === undefined ? "missing" : `unknown field ${JSON.stringify(v.field)}`;
    note(`${path}.field`, `${what}; one of ${POLICY_FIELDS.map((f) => f.name).join(", ")}`);
    return null;
  }
  const ops = OPERATORS[field.type];
  if (typeof v.op !== "string" || !ops.includes(v.op)) {
    note(
      `${path}.op`,
      `${v.op === undefined ? "missing" : JSON.stringify(v.op)}: ${field.name} takes ${ops.join(", ")}`,
    );
    return null;
  }
  const op = v.op;
  if (!("value" in v)) {
    note(`${path}.value`, "missing");
    return null;
  }
  const at = `${path}.value`;
  if (!LIST_OPS.has(op)) {
    const one = comparedValue(field.type, v.value, at, note);
    return one === null ? null : { field: field.name, op, value: one };
  }
  if (!Array.isArray(v.value) || v.value.length === 0) {
    note(at, `${op} takes a list of at least one value`);
    return null;
  }
  if (v.value.length > POLICY_LIMITS.values) {
    note(at, `${v.value.length.toLocaleString("en")} values: at most ${POLICY_LIMITS.values.toLocaleString("en")}`);
    return null;
  }
  const values = new Set<unknown>();
  for (let i = 0; i < v.value.length; i++) {
    const one = comparedValue(field.type, v.value[i], `${at}[${i}]`, note);
    if (one === null) return null;
    values.add(one);
  }
  return { field: field.name, op, value: [...values] };
}

/** A value in the form the compiled rule compares, or null (noted). */
function comparedValue(type: FieldType, v: unknown, path: string, note: Note): unknown {
  switch (type) {
    case "boolean":
      if (typeof v === "boolean") return v;
      note(path, "true or false");
      return null;
    case "number":
      if (Number.isSafeInteger(v) && (v as number) >= 0) return v;
      note(path, `a whole number, 0 or more, not ${JSON.stringify(v)}`);
      return null;
    case "asn": {
      const m = typeof v === "string" ? /^(?:AS)?(\d{1,10})$/i.exec(v) : null;
      const n = typeof v === "number" ? v : m ? Number(m[1]) : Number.NaN;
      if (Number.isSafeInteger(n) && n >= 1 && n <= 0xffffffff) return n;
      note(path, `an AS number, AS1 to AS4294967295 (as "AS15169" or 15169), not ${JSON.stringify(v)}`);
      return null;
    }
    case "text":
      if (typeof v === "string" && EVENT.test(v.toLowerCase())) return v.toLowerCase();
      note(path, "an event label: 1 to 64 letters, digits, '_', '.', ':' or '-'");
      return null;
    case "country":
      if (typeof v === "string" && /^[a-z]{2}$/i.test(v)) return v.toUpperCase();
      note(path, `an ISO 3166-1 alpha-2 country code ("DE"), not ${JSON.stringify(v)}`);
      return null;
    case "domain": {
      const domain = typeof v === "string" ? normaliseDomain(v.trim()) : null;
      if (domain !== null) return domain;
      note(path, `a domain name ("example.com"), not ${JSON.stringify(v)}`);
      return null;
    }
    case "level":
      if (typeof v === "string" && (LEVELS_BY_RANK as readonly string[]).includes(v)) return v;
      note(path, `a level: ${LEVELS_BY_RANK.join(", ")}`);
      return null;
    case "kinds":
      if (typeof v === "string" && (KIND_NAMES as readonly string[]).includes(v)) return v;
      note(path, `a kind: ${KIND_NAMES.join(", ")}`);
      return null;
  }
}
