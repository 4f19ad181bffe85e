import type { IpDatasets, IpFacts } from "./ip-facts.ts";
import { verdictFlags } from "./ip-facts.ts";
import {
  ALL_KINDS,
  KIND,
  KIND_NAMES,
  type KindName,
  kindBit,
  kindNames,
  kindsInName,
  kindsOfNetwork,
} from "../verdict/network-kinds.ts";
import type { ParsedIp } from "../address/parse.ts";
import { countedReports, type Listing } from "../verdict/report-counting.ts";
import { FLAG } from "../indexes/reputation-index.ts";
import type { Geolocation } from "../geo/geo-record.ts";
import type { Place } from "../indexes/declared-location-index.ts";
import type { OverrideInForce } from "../overrides/override-table.ts";
import { type Rule, ruleOf } from "../verdict/reputation.ts";

/** One list's word on the address: `?explain=1`'s answer to "why is this address listed". */
export interface Contribution {
  readonly source: string;
  /** The counter its reports go to, or what else the list says: a kind, confirmed-bad, verified-crawler, anycast, allowlisted. */
  readonly category: string;
  /** The listing's own count (ipsum: the number of lists); 1 for a plain list. */
  readonly count: number;
  /** Reports one listing counts as. */
  readonly weight: number;
  /** Reports it adds to `sum`, once the lists it aggregates are counted. */
  readonly counted: number;
  /** When this appliance's updates first and last saw the listing; null for hand-kept lists. */
  readonly first_seen: string | null;
  readonly last_seen: string | null;
  /** For a list of benign infrastructure: its class ("seo:googlebot", "cloud:aws", "relay:icloud"). */
  readonly class?: string;
  /** What the publisher says the range is for ("AWS us-east-1 EC2"). */
  readonly label?: string;
}

/** A benign class the address belongs to, and what it does to the level. */
export interface InfrastructureClass {
  readonly class: string;
  readonly source: string;
  /** "cap": reports make it no more than suspicious (crawlers; relays and anycast edges unless on DROP); "label": it names the network and changes no level. */
  readonly effect: "cap" | "label";
  readonly label?: string;
  /** A relay exit's place from its geofeed row, which the answer's location follows. */
  readonly place?: Place;
}

export interface KindOrigin {
  readonly kind: KindName;
  /** A list of ranges, an AS number's list, or the organisation's name. */
  readonly from: string;
}

export interface Explanation {
  readonly rule: Rule;
  /** The operator's line, when one decided (allow gives the rule "allowlisted", deny "denylisted"): `riskcheck ip allow|deny`, the dashboard, the admin API or data/ip/allowlist.txt. */
  readonly override?: OverrideInForce;
  readonly contributions: readonly Contribution[];
  readonly kinds: readonly KindOrigin[];
  /** The benign infrastructure the address is part of, by class; absent when none. */
  readonly infrastructure?: readonly InfrastructureClass[];
  /** Where the answer's location came from: the city database ("geolite2"), a cloud region ("aws:eu-central-1"), a geofeed ("geofeed:<source>"). */
  readonly location_source: string;
  /** How finely the answer locates the address: to a city, a region, its country alone (the country's representative point), or not at all. */
  readonly location_precision: LocationPrecision;
  /** What the city database says, when a declaration moved the address to another country. */
  readonly database_location?: { readonly country_code: string; readonly region: string; readonly city: string };
  /** Why the answer may say less than it should (no feed loaded yet). */
  readonly warnings?: readonly string[];
}

export type LocationPrecision = "city" | "region" | "country" | "none";

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
