import { KIND, type KindName, kindNames } from "./network-kinds.ts";

export interface Counters {
  bot: number;
  probe: number;
  rate: number;
  attack: number;
  crawler: number;
}

export interface VerdictFlags {
  /** On a confirmed-malicious list (Spamhaus DROP, an operator denylist). */
  confirmedBad: boolean;
  /** In a search engine's published crawler ranges. */
  verifiedCrawler: boolean;
  /** On the operator's allowlist. */
  allowlisted: boolean;
}

export interface Thresholds {
  readonly badSum: number;
  readonly warningSum: number;
  readonly warningAttack: number;
  readonly suspiciousSum: number;
  readonly informativeSum: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = Object.freeze({ badSum: 25, warningSum: 10, warningAttack: 3, suspiciousSum: 3, informativeSum: 1 });

export type Level = "bad" | "warning" | "suspicious" | "informative" | "ok";

/** The spec's reputation object, keys in the spec's order. */
export interface Reputation {
  readonly risky: boolean;
  readonly reputation: Level;
  readonly bot: number;
  readonly probe: number;
  readonly rate: number;
  readonly attack: number;
  readonly crawler: number;
  readonly sum: number;
  readonly kind: readonly KindName[];
}

export const CLEAN_REPUTATION: Reputation = Object.freeze({
  risky: false,
  reputation: "ok",
  bot: 0,
  probe: 0,
  rate: 0,
  attack: 0,
  crawler: 0,
  sum: 0,
  kind: kindNames(0),
});

/** Which rule set the level, for `?explain=1`. */
export type Rule =
  | "allowlisted"
  | "confirmed-bad"
  | "sum>=bad"
  | "sum>=warning"
  | "attack>=warning"
  | "verified-crawler-cap"
  | "sum>=suspicious"
  | "kind-scanner"
  | "sum>=informative"
  | "kind-vpn-or-hosting"
  | "nothing";

const LEVEL_OF_RULE: Readonly<Record<Rule, Level>> = Object.freeze({
  allowlisted: "ok",
  "confirmed-bad": "bad",
  "sum>=bad": "bad",
  "sum>=warning": "warning",
  "attack>=warning": "warning",
  "verified-crawler-cap": "suspicious",
  "sum>=suspicious": "suspicious",
  "kind-scanner": "suspicious",
  "sum>=informative": "informative",
  "kind-vpn-or-hosting": "informative",
  nothing: "ok",
});

/**
 * The rule that sets the level, first match wins. The allowlist forces ok; a
 * verified crawler is at most suspicious, whatever the lists say.
 */
export function ruleOf(c: Counters, kinds: number, flags: VerdictFlags, t: Thresholds): Rule {
  if (flags.allowlisted) return "allowlisted";
  const sum = c.bot + c.probe + c.rate + c.attack + c.crawler;
  const risky = riskyRuleOf(c, sum, flags.confirmedBad, t);
  if (risky !== null) return flags.verifiedCrawler ? "verified-crawler-cap" : risky;
  if (sum >= t.suspiciousSum) return "sum>=suspicious";
  if (kinds & KIND.scanner) return "kind-scanner";
  if (sum >= t.informativeSum) return "sum>=informative";
  if (kinds & (KIND.vpn | KIND.hosting)) return "kind-vpn-or-hosting";
  return "nothing";
}

/** The rule for bad or warning, or null. */
function riskyRuleOf(c: Counters, sum: number, confirmedBad: boolean, t: Thresholds): Rule | null {
  if (confirmedBad) return "confirmed-bad";
  if (sum >= t.badSum) return "sum>=bad";
  if (sum >= t.warningSum) return "sum>=warning";
  if (c.attack >= t.warningAttack) return "attack>=warning";
  return null;
}

/** The level and the rule behind it, for `?explain=1`. */
export function levelOf(c: Counters, kinds: number, flags: VerdictFlags, t: Thresholds): { level: Level; rule: Rule } {
  const rule = ruleOf(c, kinds, flags, t);
  return { level: LEVEL_OF_RULE[rule], rule };
}

/** The spec's reputation object. */
export function verdict(c: Counters, kinds: number, flags: VerdictFlags, t: Thresholds = DEFAULT_THRESHOLDS): Reputation {
  const level = LEVEL_OF_RULE[ruleOf(c, kinds, flags, t)];
  return {
    risky: level === "bad" || level === "warning",
    reputation: level,
    bot: c.bot,
    probe: c.probe,
    rate: c.rate,
    attack: c.attack,
    crawler: c.crawler,
    sum: c.bot + c.probe + c.rate + c.attack + c.crawler,
    kind: kindNames(kinds),
  };
}
