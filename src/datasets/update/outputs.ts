import { readFileSync } from "node:fs";
import { type AsnRange, compileAsnIndex, hasCurrentNameKinds } from "../../ip/indexes/asn-index.ts";
import { kindBit } from "../../ip/verdict/network-kinds.ts";
import { type IndexFile, type IndexKind, decodeIndexFile, encodeIndexFile } from "../../ip/indexes/range-index-file.ts";
import { COUNTER_NAMES, type CounterName, type ReportingSource } from "../../ip/verdict/report-counting.ts";
import { type Contribution, FLAG, ReputationIndexBuilder } from "../../ip/indexes/reputation-index.ts";
import type { versionFiles } from "../data-layout.ts";
import type { FeedEntry } from "./formats/feed-entry.ts";
import { FORMATS, type FormatValues, type SourceFormat } from "./formats/index.ts";
import { OUTPUT_NAMES, type OutputName } from "./output-names.ts";
import { LabelIndexBuilder, type RangeLabel } from "../../ip/indexes/label-index.ts";
import {
  type Declaration,
  DeclaredLocationIndexBuilder,
  type Place,
} from "../../ip/indexes/declared-location-index.ts";

/** A source as an output sees it: what it is, and its parsed data on demand. */
export interface OutputInput {
  readonly name: string;
  readonly format: SourceFormat;
  readonly feeds: string;
  readonly weight: number;
  readonly includes: readonly string[];
  /** The file under raw/ with its data. */
  readonly rawFile: string;
  /** Its entries (networks for an MMDB), from the manifest. */
  readonly entries: number;
  parsed<F extends SourceFormat>(format: F): FormatValues[F];
  /** An IP list's entries cut to public address space, and how many were cut. */
  ipEntries(): { readonly entries: readonly FeedEntry[]; readonly clipped: number };
}

export type BuiltOutput =
  | { readonly data: Uint8Array | string; readonly count: number; readonly note?: string }
  | { readonly linkTo: string; readonly count: number };

type VersionFile = Exclude<
  keyof ReturnType<typeof versionFiles>,
  "root" | "manifest" | "raw" | "evidence" | "emailEvidence" | "emailEvidencePack" | "disputedDomains"
>;

interface OutputSpec extends OutputPlan {
  /** Whether a source feeds it: its format's descriptor names the output, and the output takes its `feeds`. */
  readonly fedBy: (format: SourceFormat, feeds: string) => boolean;
}

interface OutputPlan {
  readonly file: VersionFile;
  /** Of the sources whose format feeds it, the ones it takes, by their `feeds`; default all. */
  readonly takes?: (feeds: string) => boolean;
  /** A version may lack it (no source feeds it); the others must exist to load. */
  readonly optional?: boolean;
  /** Which of the sources that feed it are used, from all of them in declared order; default all. */
  select?(inputs: readonly OutputInput[]): readonly OutputInput[];
  /** Builds it from the selected inputs; null when there is none to build it from. */
  build(inputs: readonly OutputInput[], built: string): BuiltOutput | null;
  /** Whether the current version's file is built as this code builds it, so that unchanged inputs keep it; default yes. */
  builtAsNow?(file: string): boolean;
}

export { OUTPUT_NAMES, type OutputName };

/**
 * Every compiled output of a dataset version. Lists are the union of every source that
 * feeds them; a database file cannot be merged, so the last declared source that feeds
 * it (and has data) serves it alone.
 */
const PLANS: Readonly<Record<OutputName, OutputPlan>> = {
  "disposable-domains": domainOutput("disposableDomains", "disposable"),
  "disposable-wildcards": domainOutput("disposableWildcards", "disposable-wildcard"),
  "free-domains": domainOutput("freeDomains", "free"),
  "allowed-domains": domainOutput("feedAllowedDomains", "allow"),
  "reputation-index": {
    file: "reputationIndex",
    builtAsNow: (path) => indexAsBuiltNow(path, "reputation") !== null,
    // A location geofeed says where a range is, nothing of its reputation.
    takes: (feeds) => feeds !== "location",
    build: (inputs, built) => {
      const builder = new ReputationIndexBuilder();
      const reporting = new Map<string, ReportingSource>();
      let clipped = 0;
      for (const input of inputs) {
        const feed = input.ipEntries();
        clipped += feed.clipped;
        const counter = isCounter(input.feeds) ? input.feeds : null;
        if (counter) reporting.set(input.name, { category: counter, weight: input.weight, includes: input.includes });
        // One contribution object per list and count, shared by its entries.
        const flagged: Contribution = { source: input.name, flags: counter === null ? flagsOf(input.feeds) : 0 };
        const counted = new Map<number, Contribution>();
        const countedAs = (count: number) =>
          counted.get(count) ?? counted.set(count, { source: input.name, count }).get(count)!;
        for (const e of feed.entries) builder.add(e.range, counter ? countedAs(e.count) : flagged);
      }
      const file = builder.build({ built }, reporting);
      return {
        data: encodeIndexFile(file),
        count: file.columns.v4Values.length + file.columns.v6Values.length,
        note: clipped ? `${clipped} feed entries clipped to public address space` : undefined,
      };
    },
  },
  "infrastructure-labels": {
    file: "infrastructureLabels",
    optional: true,
    builtAsNow: (path) => indexAsBuiltNow(path, "labels") !== null,
    build: (inputs, built) => {
      if (inputs.length === 0) return null;
      const builder = new LabelIndexBuilder();
      for (const input of inputs) {
        const labels = new Map<string, RangeLabel>();
        for (const e of input.ipEntries().entries) {
          if (e.label)
            builder.add(
              e.range,
              labels.get(e.label) ?? labels.set(e.label, { source: input.name, label: e.label }).get(e.label)!,
            );
        }
      }
      const file = builder.build({ built });
      return { data: encodeIndexFile(file), count: file.columns.v4Values.length + file.columns.v6Values.length };
    },
  },
  "declared-locations": {
    file: "declaredLocations",
    optional: true,
    builtAsNow: (path) => indexAsBuiltNow(path, "places") !== null,
    build: (inputs, built) => {
      if (inputs.length === 0) return null;
      const builder = new DeclaredLocationIndexBuilder();
      for (const input of inputs) {
        // One declaration per place (the geofeed parser shares one Place between its rows) and per region.
        const declarations = new Map<Place | string, Declaration>();
        const declared = (key: Place | string, make: () => Declaration) =>
          declarations.get(key) ?? declarations.set(key, make()).get(key)!;
        for (const e of input.ipEntries().entries) {
          if (e.place)
            builder.add(
              e.range,
              declared(e.place, () => ({ source: input.name, place: e.place! })),
            );
          else if (e.regions)
            builder.add(
              e.range,
              declared(e.regions.join(" "), () => ({ source: input.name, regions: e.regions! })),
            );
        }
      }
      const file = builder.build({ built });
      return { data: encodeIndexFile(file), count: file.columns.v4Values.length + file.columns.v6Values.length };
    },
  },
  "asn-kinds": {
    file: "feedAsnKinds",
    build: (inputs) => {
      const lists = inputs.map((input) => ({ source: input.name, kind: input.feeds, asns: input.parsed("asn-list") }));
      return { data: JSON.stringify(lists), count: new Set(lists.flatMap((l) => l.asns)).size };
    },
  },
  "asn-index": {
    file: "asnIndex",
    build: (inputs, built) => {
      const rows = function* (): Generator<AsnRange> {
        for (const input of inputs) yield* input.parsed("asn-csv")();
      };
      const file = compileAsnIndex(rows(), { built, sources: inputs.map((i) => i.name) });
      return { data: encodeIndexFile(file), count: file.columns.v4Values.length + file.columns.v6Values.length };
    },
    // An index from before the names' kinds were compiled, or under other patterns, is built again.
    builtAsNow: (path) => {
      const index = indexAsBuiltNow(path, "asn");
      return index !== null && hasCurrentNameKinds(index);
    },
  },
  "city-ipv4": databaseOutput("cityV4", ["city", "city-ipv4"]),
  "city-ipv6": databaseOutput("cityV6", ["city", "city-ipv6"]),
  country: databaseOutput("country", ["country"]),
  "asn-isp": { ...databaseOutput("asnIsp", ["asn-isp"]), optional: true },
};

export const OUTPUTS = Object.fromEntries(
  OUTPUT_NAMES.map((name) => {
    const plan = PLANS[name];
    const fedBy = (format: SourceFormat, feeds: string) =>
      FORMATS[format].outputs.includes(name) && (plan.takes?.(feeds) ?? true);
    return [name, { ...plan, fedBy }];
  }),
) as Readonly<Record<OutputName, OutputSpec>>;

/**
 * The index at `path` if it reads as `kind` and carries its bucket tables, or null: one from before them (or one
 * that does not read) is built again even from unchanged inputs, so that one `update` leaves no index without them.
 */
export function indexAsBuiltNow(path: string, kind: IndexKind): IndexFile | null {
  try {
    const index = decodeIndexFile(readFileSync(path), path, kind);
    return index.columns.buckets === undefined ? null : index;
  } catch {
    return null;
  }
}

function domainOutput(file: VersionFile, target: string): OutputPlan {
  return {
    file,
    takes: (feeds) => feeds === target,
    build: (inputs) => {
      const domains = new Set<string>();
      for (const input of inputs) for (const d of input.parsed("domain-list")) domains.add(d);
      return {
        data: `# compiled by riskcheck update from ${inputs.map((i) => i.name).join(", ") || "no source"}\n${[...domains].join("\n")}\n`,
        count: domains.size,
      };
    },
  };
}

function databaseOutput(file: VersionFile, targets: readonly string[]): OutputPlan {
  return {
    file,
    takes: (feeds) => targets.includes(feeds),
    select: (inputs) => inputs.slice(-1),
    build: ([serving]) => (serving ? { linkTo: serving.rawFile, count: serving.entries } : null),
  };
}

function isCounter(feeds: string): feeds is CounterName {
  return (COUNTER_NAMES as readonly string[]).includes(feeds);
}

/** Kind and flag bits of an IP list that feeds no counter. */
function flagsOf(feeds: string): number {
  if (feeds === "confirmed-bad") return FLAG.confirmedBad;
  if (feeds === "verified-crawler") return FLAG.verifiedCrawler | kindBit("crawler");
  if (feeds === "relay") return FLAG.relay;
  if (feeds === "anycast") return FLAG.anycast;
  return kindBit(feeds);
}
