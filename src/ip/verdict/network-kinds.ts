/** Kind bits an AS number has from one list. */
export interface AsnKindSource {
  readonly bits: number;
  /** The list: "curated/hosting-asns.txt", or the source that fed `update`'s ASN lists. */
  readonly source: string;
}

/** The spec's network kinds as bits, in the order the `kind` array lists them. */
export const KIND_NAMES = ["hosting", "vpn", "scanner", "crawler", "isp", "education", "dynamic"] as const;
export type KindName = (typeof KIND_NAMES)[number];

export const KIND = Object.freeze({
  hosting: 1,
  vpn: 2,
  scanner: 4,
  crawler: 8,
  isp: 16,
  education: 32,
  dynamic: 64,
} as const);
export const ALL_KINDS = 127;

const KIND_ARRAYS: readonly (readonly KindName[])[] = kindArrays();

// Plain loops: this runs before main.ts on every start, where a filter callback per kind and mask cost ~0.6 ms.
function kindArrays(): (readonly KindName[])[] {
  const arrays: (readonly KindName[])[] = [];
  for (let bits = 0; bits <= ALL_KINDS; bits++) {
    const names: KindName[] = [];
    for (let i = 0; i < KIND_NAMES.length; i++) if (bits & (1 << i)) names.push(KIND_NAMES[i]);
    arrays.push(Object.freeze(names));
  }
  return arrays;
}

/** The `kind` array for a bitmask; shared frozen arrays, nothing allocated per call. */
export function kindNames(bits: number): readonly KindName[] {
  return KIND_ARRAYS[bits & ALL_KINDS];
}

export function kindBit(name: string): number {
  const i = KIND_NAMES.indexOf(name as KindName);
  if (i === -1) throw new Error(`unknown kind "${name}"; one of ${KIND_NAMES.join(", ")}`);
  return 1 << i;
}

// Heuristics on the organisation name of the network; documented in docs/reputation.md.
// "Academic" alone also names theatres and academies of arts; "Communications" alone
// names transit carriers (Cogent, Level 3, GTT), whose addresses are not residential.
const EDUCATION_NAME =
  /universit|\bcollege\b|hochschule|universidad|universidade|uniwersytet|politecnico|polytechnic|institute of technology|research and education|academic (and research )?network|\bschool district\b/i;
// No word boundary before "tele": Rostelecom, Kazakhtelecom, Telekomunikasi, Telecomunicações.
const ISP_NAME =
  /tele(com|kom|communication|fonica|net)|broadband|\bcable\b|cablevision|\bmobile\b|wireless|\bfib(er|re)\b|\bdsl\b|internet service provider|\bcomcast\b|\bverizon\b|\bvodafone\b|\bcharter communications\b|\bspectrum\b/i;

/**
 * The version of the two patterns above: `update` writes what they say of every ASN index
 * entry into the index, with this number; an index compiled under another is read again at
 * load. Raise it whenever either pattern changes.
 */
export const NAME_RULES = 1;

/**
 * What an organisation's name says: `education`, and `isp` for a name that reads like an access provider's (whether
 * the network is one depends on its lists too: `kindsOfNetwork`).
 */
export function kindsInName(organization: string): number {
  return (EDUCATION_NAME.test(organization) ? KIND.education : 0) | (ISP_NAME.test(organization) ? KIND.isp : 0);
}

/** Kinds a network gets from the curated ASN lists and what its organisation's name says (`kindsInName`). */
export function kindsOfNetwork(asnKinds: number, nameKinds: number): number {
  const bits = asnKinds | (nameKinds & KIND.education);
  return !(bits & (KIND.hosting | KIND.vpn | KIND.education)) && nameKinds & KIND.isp ? bits | KIND.isp : bits;
}

/**
 * `connection_type` when no Connection-Type database is configured: data-centre,
 * VPN, crawler and campus networks are "Corporate"; access providers and dynamic
 * ranges "Residential"; unknown networks ''.
 */
export function connectionTypeOf(kinds: number): string {
  if (kinds & (KIND.hosting | KIND.vpn | KIND.crawler | KIND.education)) return "Corporate";
  if (kinds & (KIND.isp | KIND.dynamic)) return "Residential";
  return "";
}
