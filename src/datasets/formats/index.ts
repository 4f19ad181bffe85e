import type { AsnRange } from "../../ip/indexes/asn-index.ts";
import { KIND_NAMES } from "../../ip/verdict/network-kinds.ts";
import { COUNTER_NAMES } from "../../ip/verdict/report-counting.ts";
import { parseAddressList } from "./address-list.ts";
import { parseAsnCsv } from "./asn-csv.ts";
import { parseAsnListFeed } from "./asn-list.ts";
import { parseAwsIpRanges } from "./aws-ip-ranges.ts";
import { DOMAIN_LIST_TARGETS, parseDomainList } from "./domain-list.ts";
import { parseFastlyIpList } from "./fastly-ip-list.ts";
import type { FeedEntry } from "./feed-entry.ts";
import { parseGeofeedCsv } from "./geofeed-csv.ts";
import { parseGithubMeta } from "./github-meta.ts";
import { parseGoogleCloudRanges } from "./google-cloud-ranges.ts";
import { MMDB_TARGETS, type MmdbTarget, parseMmdbSource } from "./mmdb.ts";
import { parseOracleCloudRanges } from "./oracle-cloud-ranges.ts";
import type { ParsedSource } from "./parsed-source.ts";
import { CAPPING_TARGETS, checkPlausible } from "./plausible-ranges.ts";
import { parsePrefixJson } from "./prefix-json.ts";

/** What each format's parser hands to the compiler. */
export interface FormatValues {
  mmdb: null;
  "asn-csv": () => Iterable<AsnRange>;
  "address-list": FeedEntry[];
  "prefix-json": FeedEntry[];
  "aws-ip-ranges": FeedEntry[];
  "google-cloud-ranges": FeedEntry[];
  "oracle-cloud-ranges": FeedEntry[];
  "github-meta": FeedEntry[];
  "fastly-ip-list": FeedEntry[];
  "geofeed-csv": FeedEntry[];
  "asn-list": number[];
  "domain-list": string[];
}
export type SourceFormat = keyof FormatValues;
/** The formats whose entries are address ranges: they feed the reputation index. */
export type IpFormat = { [F in SourceFormat]: FormatValues[F] extends FeedEntry[] ? F : never }[SourceFormat];

interface Format<F extends SourceFormat> {
  /** What a source of this format may feed (its `feeds` field). */
  readonly targets: readonly string[];
  /** Parses and checks by content; throws ContentError. */
  parse(bytes: Uint8Array, feeds: string): ParsedSource<FormatValues[F]>;
}

/** IP lists feed a counter, a kind or a flag of the reputation index. */
const IP_FEED_TARGETS = [...COUNTER_NAMES, ...KIND_NAMES, "confirmed-bad", "verified-crawler", "relay", "anycast"];
/** A cloud's or CDN's own ranges: a hosting label, or anycast edges; a geofeed: relay exits. */
const INFRASTRUCTURE_TARGETS = ["hosting", "anycast"];

/** An IP list's parser, with the bounds every list that caps a verdict must keep. */
function ipFormat<F extends IpFormat>(parse: (bytes: Uint8Array) => ParsedSource<FeedEntry[]>, targets: readonly string[]): Format<F> {
  return {
    targets,
    parse(bytes, feeds) {
      const parsed = parse(bytes);
      const bounds = CAPPING_TARGETS[feeds];
      if (bounds) checkPlausible(parsed.value.map((e) => e.range), bounds, `a list of ${feeds} ranges`);
      return parsed as ParsedSource<FormatValues[F]>;
    },
  };
}

export const FORMATS: { readonly [F in SourceFormat]: Format<F> } = {
  mmdb: { targets: MMDB_TARGETS, parse: (bytes, feeds) => parseMmdbSource(bytes, feeds as MmdbTarget) },
  "asn-csv": { targets: ["asn"], parse: parseAsnCsv },
  "address-list": ipFormat(parseAddressList, IP_FEED_TARGETS),
  "prefix-json": ipFormat(parsePrefixJson, IP_FEED_TARGETS),
  "aws-ip-ranges": ipFormat(parseAwsIpRanges, INFRASTRUCTURE_TARGETS),
  "google-cloud-ranges": ipFormat(parseGoogleCloudRanges, INFRASTRUCTURE_TARGETS),
  "oracle-cloud-ranges": ipFormat(parseOracleCloudRanges, INFRASTRUCTURE_TARGETS),
  "github-meta": ipFormat(parseGithubMeta, INFRASTRUCTURE_TARGETS),
  "fastly-ip-list": ipFormat(parseFastlyIpList, INFRASTRUCTURE_TARGETS),
  "geofeed-csv": ipFormat(parseGeofeedCsv, ["relay"]),
  "asn-list": { targets: KIND_NAMES, parse: parseAsnListFeed },
  "domain-list": { targets: DOMAIN_LIST_TARGETS, parse: parseDomainList },
};

export const FORMAT_NAMES = Object.keys(FORMATS) as SourceFormat[];
export const IP_FORMATS = new Set<SourceFormat>(["address-list", "prefix-json", "aws-ip-ranges", "google-cloud-ranges", "oracle-cloud-ranges", "github-meta", "fastly-ip-list", "geofeed-csv"]);
