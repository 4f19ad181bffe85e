import { ADDRESS_LIST_FORMAT } from "./address-list.ts";
import { ASN_CSV_FORMAT } from "./asn-csv.ts";
import { ASN_LIST_FORMAT } from "./asn-list.ts";
import { AWS_IP_RANGES_FORMAT } from "./aws-ip-ranges.ts";
import { DOMAIN_LIST_FORMAT } from "./domain-list.ts";
import { FASTLY_IP_LIST_FORMAT } from "./fastly-ip-list.ts";
import type { FeedEntry } from "./feed-entry.ts";
import { GEOFEED_CSV_FORMAT } from "./geofeed-csv.ts";
import { GITHUB_META_FORMAT } from "./github-meta.ts";
import { GOOGLE_CLOUD_RANGES_FORMAT } from "./google-cloud-ranges.ts";
import { MMDB_FORMAT } from "./mmdb.ts";
import { ORACLE_CLOUD_RANGES_FORMAT } from "./oracle-cloud-ranges.ts";
import { PREFIX_JSON_FORMAT } from "./prefix-json.ts";
import type { SourceFormatDescriptor } from "./source-format.ts";

/**
 * Every source format: each file of formats/ describes its own (name, parser, size ceiling,
 * outputs, labels) and this list names them once; everything below is derived from it.
 *
 * The size ceilings come from measured peaks of `riskcheck update` (RSS) and the largest real
 * sources, noted at each descriptor. Past them, the entries of all IP lists together are
 * bounded too (update.ts).
 */
const DESCRIPTORS = [
  MMDB_FORMAT,
  ASN_CSV_FORMAT,
  ADDRESS_LIST_FORMAT,
  PREFIX_JSON_FORMAT,
  AWS_IP_RANGES_FORMAT,
  GOOGLE_CLOUD_RANGES_FORMAT,
  ORACLE_CLOUD_RANGES_FORMAT,
  GITHUB_META_FORMAT,
  FASTLY_IP_LIST_FORMAT,
  GEOFEED_CSV_FORMAT,
  ASN_LIST_FORMAT,
  DOMAIN_LIST_FORMAT,
] as const;

type Descriptor = (typeof DESCRIPTORS)[number];
export type SourceFormat = Descriptor["name"];
/** What each format's parser hands to the compiler. */
export type FormatValues = {
  [D in Descriptor as D["name"]]: D extends SourceFormatDescriptor<string, infer Value> ? Value : never;
};
/** The formats whose entries are address ranges: they feed the reputation index. */
export type IpFormat = { [F in SourceFormat]: FormatValues[F] extends FeedEntry[] ? F : never }[SourceFormat];

export const FORMATS = Object.fromEntries(DESCRIPTORS.map((d) => [d.name, d])) as {
  readonly [F in SourceFormat]: SourceFormatDescriptor<F, FormatValues[F]>;
};
export const FORMAT_NAMES: readonly SourceFormat[] = DESCRIPTORS.map((d) => d.name);
export const MAX_SOURCE_BYTES = Object.fromEntries(DESCRIPTORS.map((d) => [d.name, d.maxBytes])) as {
  readonly [F in SourceFormat]: number;
};
export const IP_FORMATS: ReadonlySet<SourceFormat> = new Set(
  DESCRIPTORS.filter((d) => d.outputs.includes("reputation-index")).map((d) => d.name),
);
