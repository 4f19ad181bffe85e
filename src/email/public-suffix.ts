import type * as Tldts from "tldts";

/**
 * tldts builds its suffix trie as it loads (~5 ms of CPU): loaded at the first name
 * asked, so that the commands that never ask (keys, admin, --help …) start without it.
 */
let tldts: typeof Tldts | undefined;
const psl = (): typeof Tldts => (tldts ??= require("tldts") as typeof Tldts);

const PSL = { allowPrivateDomains: true } as const;
/**
 * For names `normaliseDomain` made or `update` wrote normalised (lower-case host names):
 * tldts need not extract or validate them again, which makes a load's pass over the
 * lists several times faster; the answers are the same for such names.
 */
const PSL_NORMALISED = {
  allowPrivateDomains: true,
  extractHostname: false,
  validateHostname: false,
  detectIp: false,
  mixedInputs: false,
} as const;

export function isPublicSuffix(domain: string): boolean {
  return psl().getPublicSuffix(domain, PSL) === domain;
}

/** The label before the public suffix of the registrable domain ("example" of "a.example.co.uk"), or null. */
export function domainWithoutSuffix(domain: string): string | null {
  return psl().getDomainWithoutSuffix(domain, PSL);
}

/** The public suffix of a normalised name ("" for none). */
export function publicSuffixOfNormalised(domain: string): string {
  return psl().getPublicSuffix(domain, PSL_NORMALISED) ?? "";
}

/** The registrable domain of a normalised name (its public suffix and one label more), or null for a public suffix itself. */
export function registrableOfNormalised(domain: string): string | null {
  return psl().getDomain(domain, PSL_NORMALISED);
}
