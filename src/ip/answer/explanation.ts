import type {
  Contribution,
  Explanation,
  InfrastructureClass,
  KindOrigin,
  LocationPrecision,
} from "./explanation-schema.ts";
import type { IpDatasets, IpFacts } from "./ip-facts.ts";
import { verdictFlags } from "./ip-facts.ts";
import {
  ALL_KINDS,
  KIND,
  KIND_NAMES,
  kindBit,
  kindNames,
  kindsInName,
  kindsOfNetwork,
} from "../verdict/network-kinds.ts";
import type { ParsedIp } from "../address/parse.ts";
import { countedReports, type Listing } from "../verdict/report-counting.ts";
import { FLAG } from "../indexes/reputation-index.ts";
import type { Geolocation } from "../geo/geo-record.ts";
import { ruleOf } from "../verdict/reputation.ts";

/** The finest part of the place an answer gives. */
export function locationPrecision(
  geo: Pick<Geolocation, "city" | "region" | "region_name" | "country_code">,
): LocationPrecision {
  if (geo.city) return "city";
  if (geo.region || geo.region_name) return "region";
  return geo.country_code ? "country" : "none";
}

/** What the sources file says of a source: what it feeds, and when an update last confirmed it. */
export interface SourceFacts {
  readonly feeds: string;
  readonly checkedAt: string;
  readonly class?: string | null;
}

/** What a list of each target does to the level. */
const CAPPING_FEEDS = new Set(["verified-crawler", "relay", "anycast"]);

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The reasons behind an address's reputation, from the evidence of every list and the network's kinds. */
export function explain(
  d: IpDatasets,
  f: IpFacts,
  ip: ParsedIp,
  sources: Readonly<Record<string, SourceFacts>>,
): Explanation {
  const kinds = f.flags & ALL_KINDS;
  const listed: { source: string; count: number; firstSeen: number }[] = [];
  for (const [source, index] of d.evidence) {
    const evidence = index.lookup(ip);
    if (evidence) listed.push({ source, ...evidence });
  }
  const listings: Listing[] = listed.filter((l) => d.feeds.reporting.has(l.source));
  const counted = countedReports(listings, d.feeds.reporting);
  const labels = d.labels.lookup(ip);
  const contributions: Contribution[] = listed.map((l) => {
    const reporting = d.feeds.reporting.get(l.source);
    const infrastructureClass = sources[l.source]?.class;
    const label = labels
      .filter((x) => x.source === l.source)
      .map((x) => x.label)
      .join("; ");
    return {
      source: l.source,
      category: reporting?.category ?? sources[l.source]?.feeds ?? "",
      count: l.count,
      weight: reporting?.weight ?? 1,
      counted: reporting ? counted[listings.findIndex((x) => x.source === l.source)] : 0,
      first_seen: iso(l.firstSeen),
      last_seen: sources[l.source]?.checkedAt ?? null,
      ...(infrastructureClass ? { class: infrastructureClass } : {}),
      ...(label ? { label } : {}),
    };
  });
  const infrastructure = contributions.flatMap((c): InfrastructureClass[] => {
    if (!c.class) return [];
    const place = c.category === "relay" ? d.locations.placeAt(f.locationEntry) : null;
    const where =
      place && place.source === c.source
        ? { place: { country: place.country, region: place.region, city: place.city } }
        : {};
    return [
      {
        class: c.class,
        source: c.source,
        effect: CAPPING_FEEDS.has(c.category) ? "cap" : "label",
        ...(c.label ? { label: c.label } : {}),
        ...where,
      },
    ];
  });
  // This deployment's own reports: one more source, its count the distinct reporting keys of the window.
  for (const c of f.local?.categories ?? []) {
    contributions.push({
      source: "local",
      category: c.category,
      count: c.reporters,
      weight: 1,
      counted: c.counted,
      first_seen: new Date(c.firstMs).toISOString(),
      last_seen: new Date(c.lastMs).toISOString(),
    });
  }
  for (const list of d.curated.sources(f.curatedEntry)) {
    contributions.push({
      source: list.name,
      category: categoryOfFlags(list.flags),
      count: 1,
      weight: 1,
      counted: 0,
      first_seen: null,
      last_seen: null,
    });
  }
  const origins: KindOrigin[] = [];
  const add = (bits: number, from: string) => {
    for (const kind of kindNames(bits & kinds)) origins.push({ kind, from });
  };
  for (const c of contributions) add(kindBitsOf(c.category), c.source);
  const asn = f.owner.asn;
  const listedKinds = d.asnKindSources.get(asn) ?? [];
  for (const { bits, source } of listedKinds) add(bits, `AS${asn} in ${source}`);
  const listedBits = listedKinds.reduce((bits, s) => bits | s.bits, 0);
  if (asn)
    add(
      kindsOfNetwork(listedBits, kindsInName(f.owner.organization)) & ~listedBits,
      `the name of AS${asn}'s organisation, "${f.owner.organization}"`,
    );

  const declared = d.locations.sourceAt(f.locationEntry);
  const database = declared ? d.geo.lookup(ip).geo : null;
  return {
    rule: ruleOf(f.counters, kinds, verdictFlags(f.flags), d.thresholds),
    ...(f.override ? { override: f.override } : {}),
    contributions,
    kinds: origins,
    ...(infrastructure.length ? { infrastructure } : {}),
    location_source: declared || d.geoSource,
    location_precision: locationPrecision(f.located.geo),
    ...(database && database.country_code !== f.located.geo.country_code
      ? { database_location: { country_code: database.country_code, region: database.region, city: database.city } }
      : {}),
    ...(d.feeds.rangeCount === 0
      ? {
          warnings: [
            "no reputation feed is loaded: this verdict rests on network kinds alone, and ok means no data rather than clean",
          ],
        }
      : {}),
  };
}

function categoryOfFlags(flags: number): string {
  if (flags & FLAG.allowlisted) return "allowlisted";
  if (flags & FLAG.denylisted) return "denylisted";
  if (flags & FLAG.confirmedBad) return "confirmed-bad";
  if (flags & FLAG.verifiedCrawler) return "verified-crawler";
  if (flags & FLAG.anycast) return "anycast";
  return kindNames(flags)[0] ?? "";
}

/** The kind bits a contribution's category stands for. */
function kindBitsOf(category: string): number {
  if (category === "verified-crawler") return KIND.crawler;
  return (KIND_NAMES as readonly string[]).includes(category) ? kindBit(category) : 0;
}
