import type { AsnRange } from "../../ip/indexes/asn-index.ts";
import { KIND_NAMES } from "../../ip/verdict/network-kinds.ts";
import { COUNTER_NAMES } from "../../ip/verdict/report-counting.ts";
import { parseAddressList } from "./address-list.ts";
import { parseAsnCsv } from "./asn-csv.ts";
import { parseAsnListFeed } from "./asn-list.ts";
import { DOMAIN_LIST_TARGETS, parseDomainList } from "./domain-list.ts";
import type { FeedEntry } from "./feed-entry.ts";
import { MMDB_TARGETS, type MmdbTarget, parseMmdbSource } from "./mmdb.ts";
import type { ParsedSource } from "./parsed-source.ts";
import { parsePrefixJson } from "./prefix-json.ts";

/** What each format's parser hands to the compiler. */
export interface FormatValues {
  mmdb: null;
  "asn-csv": () => Iterable<AsnRange>;
  "address-list": FeedEntry[];
  "prefix-json": FeedEntry[];
  "asn-list": number[];
  "domain-list": string[];
}
export type SourceFormat = keyof FormatValues;

interface Format<F extends SourceFormat> {
  /** What a source of this format may feed (its `feeds` field). */
  readonly targets: readonly string[];
  /** Parses and checks by content; throws ContentError. */
  parse(bytes: Uint8Array, feeds: string): ParsedSource<FormatValues[F]>;
}

/** IP lists feed a counter, a kind or a flag of the reputation index. */
const IP_FEED_TARGETS = [...COUNTER_NAMES, ...KIND_NAMES, "confirmed-bad", "verified-crawler"];

export const FORMATS: { readonly [F in SourceFormat]: Format<F> } = {
  mmdb: { targets: MMDB_TARGETS, parse: (bytes, feeds) => parseMmdbSource(bytes, feeds as MmdbTarget) },
  "asn-csv": { targets: ["asn"], parse: parseAsnCsv },
  "address-list": { targets: IP_FEED_TARGETS, parse: parseAddressList },
  "prefix-json": { targets: IP_FEED_TARGETS, parse: parsePrefixJson },
  "asn-list": { targets: KIND_NAMES, parse: parseAsnListFeed },
  "domain-list": { targets: DOMAIN_LIST_TARGETS, parse: parseDomainList },
};

export const FORMAT_NAMES = Object.keys(FORMATS) as SourceFormat[];
