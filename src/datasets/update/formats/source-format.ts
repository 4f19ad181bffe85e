import { KIND_NAMES } from "../../../ip/verdict/network-kinds.ts";
import { COUNTER_NAMES } from "../../../ip/verdict/report-counting.ts";
import type { OutputName } from "../output-names.ts";
import type { FeedEntry } from "./feed-entry.ts";
import type { ParsedSource } from "./parsed-source.ts";
import { CAPPING_TARGETS, checkPlausible } from "./plausible-ranges.ts";

export const MB = 1_048_576;

/** A source format, as the file that parses it describes it: all that update needs to know of it. */
export interface SourceFormatDescriptor<Name extends string = string, Value = unknown> {
  /** The `format` of a source in sources.json. */
  readonly name: Name;
  /** What a source of this format may feed (its `feeds` field). */
  readonly targets: readonly string[];
  /** The most a source may hold, unpacked: what keeps `update` within 1 GB (formats/index.ts). */
  readonly maxBytes: number;
  /** The outputs its sources feed; outputs.ts may take only the sources of some `feeds`. */
  readonly outputs: readonly OutputName[];
  /** Whether its entries carry their publisher's label (region, service): then it feeds the infrastructure labels. */
  readonly labels: boolean;
  /** Parses and checks by content; throws ContentError. */
  parse(bytes: Uint8Array, feeds: string): ParsedSource<Value>;
}

/** IP lists feed a counter, a kind or a flag of the reputation index. */
export const IP_FEED_TARGETS = [
  ...COUNTER_NAMES,
  ...KIND_NAMES,
  "confirmed-bad",
  "verified-crawler",
  "relay",
  "anycast",
];
/** A cloud's or CDN's own ranges: a hosting label, or anycast edges. */
export const INFRASTRUCTURE_TARGETS = ["hosting", "anycast"];

/**
 * An IP list: its ranges feed the reputation index (and the infrastructure labels when its
 * entries are labelled, and `alsoFeeds`), within the bounds every list that caps a verdict keeps.
 */
export function ipListFormat<Name extends string>(format: {
  readonly name: Name;
  readonly targets: readonly string[];
  readonly maxBytes: number;
  readonly labels: boolean;
  readonly alsoFeeds?: readonly OutputName[];
  readonly parse: (bytes: Uint8Array, feeds: string) => ParsedSource<FeedEntry[]>;
}): SourceFormatDescriptor<Name, FeedEntry[]> {
  const { name, targets, maxBytes, labels, alsoFeeds = [], parse } = format;
  return {
    name,
    targets,
    maxBytes,
    labels,
    outputs: ["reputation-index", ...(labels ? (["infrastructure-labels"] as const) : []), ...alsoFeeds],
    parse(bytes, feeds) {
      const parsed = parse(bytes, feeds);
      const bounds = CAPPING_TARGETS[feeds];
      if (bounds)
        checkPlausible(
          parsed.value.map((e) => e.range),
          bounds,
          `a list of ${feeds} ranges`,
        );
      return parsed;
    },
  };
}
