import { type EvidenceRule, meetsRule } from "./evidence-rule.ts";
import { LISTED_STRENGTHS, type ListedNames } from "./listed-names.ts";
import { registrableOfNormalised } from "./public-suffix.ts";

/** A registrable domain with listed names under it: how many, by the strength of their listing (`LISTED_STRENGTHS` codes). */
export interface FamilyCandidate {
  readonly domain: string;
  readonly members: readonly number[];
}

/**
 * How many listed subdomains of one registrable domain make it and all its names disposable.
 * Chosen by measurement on Castle's history (docs/email-calibration.md, `bun run
 * replay:castle`): from the names known on 2026-06-20, 3 caught 34 of the 1,645 names Castle
 * first listed later that no list held then, and flagged no popular site; 2 caught 45 but
 * flagged home.pl; 12 caught 9. From 3 to 8 one academic site (under Google's mygbiz.com, of
 * 23,974) is flagged, within the 0.1 % allowed.
 */
export const FAMILY_MEMBERS = 3;

/**
 * The registrable domains (public-suffix list, private section included) under which the
 * lists name at least two subdomains, the domain itself aside: what `families` decides from
 * under any rule. Compiled by `update` with the lists.
 */
export function familyCandidates(exact: ListedNames): FamilyCandidate[] {
  const byDomain = new Map<string, number[]>();
  let entry = 0;
  for (const name of exact.names) {
    const code = exact.strengths[entry++];
    const domain = registrableOfNormalised(name);
    if (domain === null || domain === name) continue;
    let members = byDomain.get(domain);
    if (members === undefined) byDomain.set(domain, (members = LISTED_STRENGTHS.map(() => 0)));
    members[code]++;
  }
  const candidates: FamilyCandidate[] = [];
  for (const [domain, members] of byDomain)
    if (members.reduce((a, b) => a + b, 0) >= 2) candidates.push({ domain, members });
  return candidates;
}

/**
 * The families `rule` makes: each registrable domain with at least `threshold` listed
 * subdomains whose listing meets the rule, with that count, unless `excluded` (a free
 * provider, a relay, an academic or government domain, an allowlisted or held-back name).
 */
export function families(
  candidates: readonly FamilyCandidate[],
  rule: EvidenceRule,
  excluded: (domain: string) => boolean,
  threshold = FAMILY_MEMBERS,
): Map<string, number> {
  const meets = LISTED_STRENGTHS.map((s) => meetsRule(rule, s));
  const found = new Map<string, number>();
  for (const { domain, members } of candidates) {
    let count = 0;
    members.forEach((n, code) => {
      if (meets[code]) count += n;
    });
    if (count >= threshold && !excluded(domain)) found.set(domain, count);
  }
  return found;
}
