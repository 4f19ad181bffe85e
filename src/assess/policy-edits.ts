import { checkRuleSet, parseRule, parseRuleSet, type RuleDefaults } from "./parse-policy.ts";
import type { PolicyRule, RuleMode } from "./policy-rule.ts";
import type { PolicyStore, StoredPolicy } from "./policy-store.ts";

/** An edit named a rule the set does not hold. */
export class RuleNotFound extends Error {
  constructor(readonly id: string) {
    super(`no rule "${id}" in the policy`);
  }
}

/** Reading the rules and changing them, as the CLI, the dashboard and the admin API do, each edit recorded (audit/audited-policy.ts). */
export interface PolicyEditor {
  read(): Promise<StoredPolicy>;
  apply(edit: PolicyEdit): Promise<EditResult>;
}

/** The stored set kept moving under the edit: every try met another writer's newer revision. */
export class PolicyBusy extends Error {}

/** One change to the rule set: what the audit log calls it, the rule it is about, and the set it makes of the set before. */
export interface PolicyEdit {
  readonly action: "added" | "changed" | "removed" | "replaced";
  /** The rule's id; `policy` for the whole set. */
  readonly target: string;
  apply(rules: readonly PolicyRule[]): readonly PolicyRule[];
}

/** What an edit found and left. */
export interface EditResult {
  readonly before: readonly PolicyRule[];
  readonly after: readonly PolicyRule[];
  readonly revision: number;
}

const TRIES = 5;

/**
 * Reads the set, applies the edit, checks the new set whole and stores it over the revision it
 * read; when another writer stored first, reads again and applies the edit to theirs.
 */
export async function editPolicy(store: PolicyStore, edit: PolicyEdit): Promise<EditResult> {
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const { revision, rules } = await store.read();
    const after = edit.apply(rules);
    checkRuleSet(after);
    if (await store.replace(after, revision)) return { before: rules, after, revision: revision + 1 };
  }
  throw new PolicyBusy(`the policy changed ${TRIES} times while this edit was made: try it again`);
}

/**
 * A rule added at the end, or at `position` (1-based), or put in the place of the rule with its
 * id (a replacement keeps the rule's place unless `position` moves it). The rule is checked
 * here, before any store is read: a rule that does not parse is no act.
 */
export function putRule(input: unknown, defaults: RuleDefaults, position: number | null = null): PolicyEdit {
  const rule = parseRule(input, null, defaults);
  return {
    action: "added",
    target: rule.id,
    apply: (rules) => {
      const at = rules.findIndex((r) => r.id === rule.id);
      const rest = rules.filter((r) => r.id !== rule.id);
      const place = position === null ? (at === -1 ? rest.length : at) : Math.min(position - 1, rest.length);
      return [...rest.slice(0, place), rule, ...rest.slice(place)];
    },
  };
}

export function removeRule(id: string): PolicyEdit {
  return {
    action: "removed",
    target: id,
    apply: (rules) => {
      if (!rules.some((r) => r.id === id)) throw new RuleNotFound(id);
      return rules.filter((r) => r.id !== id);
    },
  };
}

/** A rule switched to `mode`, nothing else of it changed: `enforce` lets it decide, `shadow` only counts it. */
export function setMode(id: string, mode: RuleMode): PolicyEdit {
  return {
    action: "changed",
    target: id,
    apply: (rules) => {
      if (!rules.some((r) => r.id === id)) throw new RuleNotFound(id);
      return rules.map((r) => (r.id === id ? { ...r, mode } : r));
    },
  };
}

/** A rule moved to `position` (1-based; past the end is the end). */
export function moveRule(id: string, position: number): PolicyEdit {
  return {
    action: "changed",
    target: id,
    apply: (rules) => {
      const rule = rules.find((r) => r.id === id);
      if (rule === undefined) throw new RuleNotFound(id);
      const rest = rules.filter((r) => r !== rule);
      const place = Math.min(Math.max(position, 1) - 1, rest.length);
      return [...rest.slice(0, place), rule, ...rest.slice(place)];
    },
  };
}

/**
 * The whole set replaced by a file's or a request's (`{"rules": [...]}`); `shadow` puts every rule of it
 * in shadow: a candidate policy tried in shadow.
 */
export function replaceRules(input: unknown, defaults: RuleDefaults, shadow = false): PolicyEdit {
  const rules = parseRuleSet(input, defaults);
  return {
    action: "replaced",
    target: "policy",
    apply: () => (shadow ? rules.map((r) => ({ ...r, mode: "shadow" as const })) : rules),
  };
}

/**
 * The stored set read back and checked as the parser checks a file (an expired rule kept): a set that no
 * longer parses is refused, naming why.
 */
export function storedRules(text: string, revision: number, nowMs: number): StoredPolicy {
  return { revision, rules: parseRuleSet(JSON.parse(text), { author: "(stored)", nowMs, stored: true }) };
}
