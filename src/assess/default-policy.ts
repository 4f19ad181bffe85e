import type { Decision } from "./policy-rule.ts";

/**
 * The decision when no operator rule decides: the score against two thresholds. A
 * disposable address alone, or an address with several reports, is a challenge; a
 * confirmed-malicious address, or two signals together (a disposable address from a VPN),
 * a block. Calibrated on the real feeds and lists: docs/assess.md. `version` changes
 * whenever a weight or a threshold does, so an answer says which defaults made it.
 */
export const DEFAULT_POLICY = Object.freeze({ version: "default-1", challengeAt: 50, blockAt: 85 });

export function defaultDecision(score: number): Decision {
  return score >= DEFAULT_POLICY.blockAt ? "block" : score >= DEFAULT_POLICY.challengeAt ? "challenge" : "allow";
}
