/**
 * How much evidence makes a listed domain disposable. Lists copy each other, so what
 * counts is independent witnesses: a list's listing of a name that a list it copies
 * (its `includes`, followed through) also lists is the same evidence again.
 *
 * - `any`: one listing by any list (every list's union; the loosest).
 * - `corroborated` (default): a list that verifies its entries, or a list that copies
 *   no other, or two independent lists. A lone listing by a list that bulk-imports
 *   others is not enough: that is how real companies' domains get listed.
 * - `strict`: a list that verifies its entries, or two independent lists.
 *
 * Chosen by measurement on the real lists: docs/email-calibration.md.
 */
export const EVIDENCE_RULES = ["any", "corroborated", "strict"] as const;
export type EvidenceRule = (typeof EVIDENCE_RULES)[number];
export const DEFAULT_EVIDENCE_RULE: EvidenceRule = "corroborated";

/** What a rule needs to know of one list that lists the name. */
export interface Witness {
  readonly name: string;
  readonly verifies: boolean;
  /** The lists it copies, followed through their own `includes`. */
  readonly copies: ReadonlySet<string>;
}

/** The lists among `listing` that copy none of the others listing the same name. */
export function independentWitnesses<W extends Witness>(listing: readonly W[]): W[] {
  return listing.filter((w) => !listing.some((other) => other !== w && w.copies.has(other.name)));
}

export const EVIDENCE_STRENGTHS = ["verified", "independent", "single", "copied", "none"] as const;
export type EvidenceStrength = (typeof EVIDENCE_STRENGTHS)[number];

/**
 * How strong the listing is, strongest first: a verifying list; two or more independent
 * lists; one list that copies no other; only a list that copies others; nothing.
 */
export function evidenceStrength(listing: readonly Witness[]): EvidenceStrength {
  if (listing.length === 0) return "none";
  if (listing.length === 1)
    return listing[0].verifies ? "verified" : listing[0].copies.size === 0 ? "single" : "copied";
  if (listing.some((w) => w.verifies)) return "verified";
  if (independentWitnesses(listing).length >= 2) return "independent";
  return listing.some((w) => w.copies.size === 0) ? "single" : "copied";
}

export function meetsRule(rule: EvidenceRule, strength: EvidenceStrength): boolean {
  if (strength === "none") return false;
  if (rule === "any") return true;
  if (strength === "verified" || strength === "independent") return true;
  return rule === "corroborated" && strength === "single";
}
