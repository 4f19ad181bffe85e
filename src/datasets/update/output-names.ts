/** Every compiled output of a dataset version, in the order update builds them (outputs.ts says how). */
export const OUTPUT_NAMES = [
  "disposable-domains",
  "disposable-wildcards",
  "free-domains",
  "allowed-domains",
  "reputation-index",
  "infrastructure-labels",
  "declared-locations",
  "asn-kinds",
  "asn-index",
  "city-ipv4",
  "city-ipv6",
  "country",
  "asn-isp",
] as const;
export type OutputName = (typeof OUTPUT_NAMES)[number];
