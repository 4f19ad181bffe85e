import type { AsnRange } from "../../../ip/indexes/asn-index.ts";
import { KIND_NAMES } from "../../../ip/verdict/network-kinds.ts";
import { COUNTER_NAMES } from "../../../ip/verdict/report-counting.ts";
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
  /** The most a source may hold, unpacked: what keeps `update` within 1 GB (see MAX_SOURCE_BYTES). */
  readonly maxBytes: number;
  /** Parses and checks by content; throws ContentError. */
  parse(bytes: Uint8Array, feeds: string): ParsedSource<FormatValues[F]>;
}

/** IP lists feed a counter, a kind or a flag of the reputation index. */
const IP_FEED_TARGETS = [...COUNTER_NAMES, ...KIND_NAMES, "confirmed-bad", "verified-crawler", "relay", "anycast"];
/** A cloud's or CDN's own ranges: a hosting label, or anycast edges; a geofeed: relay exits. */
const INFRASTRUCTURE_TARGETS = ["hosting", "anycast"];

/** An IP list's parser, with the bounds every list that caps a verdict must keep. */
function ipFormat<F extends IpFormat>(format: F, parse: (bytes: Uint8Array) => ParsedSource<FeedEntry[]>, targets: readonly string[]): Format<F> {
  return {
    targets,
    maxBytes: MAX_SOURCE_BYTES[format],
    parse(bytes, feeds) {
      const parsed = parse(bytes);
      const bounds = CAPPING_TARGETS[feeds];
      if (bounds) checkPlausible(parsed.value.map((e) => e.range), bounds, `a list of ${feeds} ranges`);
      return parsed as ParsedSource<FormatValues[F]>;
    },
  };
}

const MB = 1_048_576;

/**
 * Ceilings on a source's unpacked size, from measured peaks of `riskcheck update` (RSS) and
 * the largest real sources. An 8 MB plain list (620,000 addresses; 377 MB peak) is four
 * times ipsum (1.9 MB). JSON and CSV formats carry more bytes per range: AWS's
 * ip-ranges.json is 2.6 MB, Apple's relay geofeed a row of ~40 bytes per range (800,000
 * rows, 28 MB: 547 MB peak). A GeoLite2 City MMDB is ~60 MB and checking one costs ~4× its size; the ASN CSV
 * is 21 MB. Past these, the entries of all IP lists together are bounded too (update.ts).
 */
export const MAX_SOURCE_BYTES: { readonly [F in SourceFormat]: number } = {
  mmdb: 160 * MB,
  "asn-csv": 64 * MB,
  "address-list": 8 * MB,
  "prefix-json": 8 * MB,
  "aws-ip-ranges": 16 * MB,
  "google-cloud-ranges": 8 * MB,
  "oracle-cloud-ranges": 8 * MB,
  "github-meta": 8 * MB,
  "fastly-ip-list": 1 * MB,
  "geofeed-csv": 32 * MB,
  "asn-list": 1 * MB,
  "domain-list": 8 * MB,
};

export const FORMATS: { readonly [F in SourceFormat]: Format<F> } = {
  mmdb: { targets: MMDB_TARGETS, maxBytes: MAX_SOURCE_BYTES.mmdb, parse: (bytes, feeds) => parseMmdbSource(bytes, feeds as MmdbTarget) },
  "asn-csv": { targets: ["asn"], maxBytes: MAX_SOURCE_BYTES["asn-csv"], parse: parseAsnCsv },
  "address-list": ipFormat("address-list", parseAddressList, IP_FEED_TARGETS),
  "prefix-json": ipFormat("prefix-json", parsePrefixJson, IP_FEED_TARGETS),
  "aws-ip-ranges": ipFormat("aws-ip-ranges", parseAwsIpRanges, INFRASTRUCTURE_TARGETS),
  "google-cloud-ranges": ipFormat("google-cloud-ranges", parseGoogleCloudRanges, INFRASTRUCTURE_TARGETS),
  "oracle-cloud-ranges": ipFormat("oracle-cloud-ranges", parseOracleCloudRanges, INFRASTRUCTURE_TARGETS),
  "github-meta": ipFormat("github-meta", parseGithubMeta, INFRASTRUCTURE_TARGETS),
  "fastly-ip-list": ipFormat("fastly-ip-list", parseFastlyIpList, INFRASTRUCTURE_TARGETS),
  "geofeed-csv": ipFormat("geofeed-csv", parseGeofeedCsv, ["relay"]),
  "asn-list": { targets: KIND_NAMES, maxBytes: MAX_SOURCE_BYTES["asn-list"], parse: parseAsnListFeed },
  "domain-list": { targets: DOMAIN_LIST_TARGETS, maxBytes: MAX_SOURCE_BYTES["domain-list"], parse: parseDomainList },
};

export const FORMAT_NAMES = Object.keys(FORMATS) as SourceFormat[];
export const IP_FORMATS = new Set<SourceFormat>(["address-list", "prefix-json", "aws-ip-ranges", "google-cloud-ranges", "oracle-cloud-ranges", "github-meta", "fastly-ip-list", "geofeed-csv"]);
