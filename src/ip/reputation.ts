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
  kind: Object.freeze([]) as readonly KindName[],
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

/**
 * The level from counters, kinds and flags. The allowlist forces ok; a verified
 * crawler can be at most suspicious, whatever the lists say.
 */
export function levelOf(c: Counters, kinds: number, flags: VerdictFlags, t: Thresholds): { level: Level; rule: Rule } {
  if (flags.allowlisted) return { level: "ok", rule: "allowlisted" };
  const sum = c.bot + c.probe + c.rate + c.attack + c.crawler;
  let high: { level: Level; rule: Rule } | null = null;
  if (flags.confirmedBad) high = { level: "bad", rule: "confirmed-bad" };
  else if (sum >= t.badSum) high = { level: "bad", rule: "sum>=bad" };
  else if (sum >= t.warningSum) high = { level: "warning", rule: "sum>=warning" };
  else if (c.attack >= t.warningAttack) high = { level: "warning", rule: "attack>=warning" };
  if (high && !flags.verifiedCrawler) return high;
  if (high) return { level: "suspicious", rule: "verified-crawler-cap" };
  if (sum >= t.suspiciousSum) return { level: "suspicious", rule: "sum>=suspicious" };
  if (kinds & KIND.scanner) return { level: "suspicious", rule: "kind-scanner" };
  if (sum >= t.informativeSum) return { level: "informative", rule: "sum>=informative" };
  if (kinds & (KIND.vpn | KIND.hosting)) return { level: "informative", rule: "kind-vpn-or-hosting" };
  return { level: "ok", rule: "nothing" };
}

export function verdict(c: Counters, kinds: number, flags: VerdictFlags, t: Thresholds = DEFAULT_THRESHOLDS): Reputation {
  const { level } = levelOf(c, kinds, flags, t);
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
