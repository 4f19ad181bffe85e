import { KIND, kindNames } from "./network-kinds.ts";
import type { Level, Reputation, Rule } from "./reputation-schema.ts";

/** Independent reports per category (see report-counting.ts). */
export interface Counters {
  bot: number;
  probe: number;
  rate: number;
  attack: number;
  crawler: number;
}

export interface VerdictFlags {
  /** On a confirmed-malicious feed (Spamhaus DROP). */
  confirmedBad: boolean;
  /** In a search engine's published crawler ranges. */
  verifiedCrawler: boolean;
  /** Shared anycast infrastructure: public DNS resolvers, CDN edges, root servers. */
  anycast: boolean;
  /** A privacy relay's egress range (iCloud Private Relay): many users share each address. */
  relay: boolean;
  /** On the operator's allowlist. */
  allowlisted: boolean;
  /** On the operator's denylist. */
  denylisted: boolean;
}

/** Independent reports from which each level starts. */
export interface Thresholds {
  readonly bad: number;
  readonly warning: number;
  readonly suspicious: number;
  readonly informative: number;
}

/**
 * Calibrated on the real feeds (docs/reputation-calibration.md): one report is one list, ipsum's count
 * its number of lists. 3 is ipsum's own recommended level for blocking; 6 lists or more
 * are 318 of ipsum's 120,430 addresses.
 */
export const DEFAULT_THRESHOLDS: Thresholds = Object.freeze({ bad: 6, warning: 3, suspicious: 2, informative: 1 });

/** A level the answer calls risky. */
export function isRisky(level: Level): boolean {
  return level === "bad" || level === "warning";
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

const sumOf = (c: Counters) => c.bot + c.probe + c.rate + c.attack + c.crawler;

/**
 * The rule behind the level, a pure function of the counters, kinds, flags and
 * thresholds. The operator's lists come first: the allowlist forces ok, the denylist
 * bad. Then the feeds: a confirmed-malicious list is bad, then the independent reports
 * decide; without reports a scanner is suspicious and a VPN or hosting network
 * informative. A verified crawler is never more than suspicious, whatever the feeds
 * say; anycast infrastructure (resolvers, CDN edges) and privacy relays' exits are never
 * made more than suspicious by reports, which there are about whoever shares them, but a
 * network on Spamhaus DROP stays bad wherever it lies. A hosting label (a cloud's ranges)
 * never lowers a level: it only makes an address with no reports informative.
 */
export function ruleOf(c: Counters, kinds: number, flags: VerdictFlags, t: Thresholds): Rule {
  const reports = sumOf(c);
  if (flags.allowlisted) return { id: "allowlisted", level: "ok", reports };
  if (flags.denylisted) return { id: "denylisted", level: "bad", reports };
  const rule = feedRule(reports, kinds, flags.confirmedBad, t);
  const shared = rule.id !== "confirmed-bad";
  const by = flags.verifiedCrawler
    ? "verified-crawler"
    : flags.relay && shared
      ? "relay"
      : flags.anycast && shared
        ? "anycast"
        : null;
  if (by && (rule.level === "bad" || rule.level === "warning"))
    return { id: "benign-cap", level: "suspicious", reports, capped: { from: rule.level, by } };
  return rule;
}

function feedRule(reports: number, kinds: number, confirmedBad: boolean, t: Thresholds): Rule {
  if (confirmedBad) return { id: "confirmed-bad", level: "bad", reports };
  if (reports >= t.bad) return { id: "reports>=bad", level: "bad", reports, threshold: t.bad };
  if (reports >= t.warning) return { id: "reports>=warning", level: "warning", reports, threshold: t.warning };
  if (reports >= t.suspicious)
    return { id: "reports>=suspicious", level: "suspicious", reports, threshold: t.suspicious };
  if (kinds & KIND.scanner) return { id: "kind-scanner", level: "suspicious", reports };
  if (reports >= t.informative)
    return { id: "reports>=informative", level: "informative", reports, threshold: t.informative };
  if (kinds & (KIND.vpn | KIND.hosting)) return { id: "kind-vpn-or-hosting", level: "informative", reports };
  return { id: "nothing", level: "ok", reports };
}

/** The spec's reputation object. */
export function verdict(
  c: Counters,
  kinds: number,
  flags: VerdictFlags,
  t: Thresholds = DEFAULT_THRESHOLDS,
): Reputation {
  const level = ruleOf(c, kinds, flags, t).level;
  return {
    risky: isRisky(level),
    reputation: level,
    bot: c.bot,
    probe: c.probe,
    rate: c.rate,
    attack: c.attack,
    crawler: c.crawler,
    sum: sumOf(c),
    kind: kindNames(kinds),
  };
}
