import type { ParsedIp } from "../address/parse.ts";
import type { GeoLookup, Located } from "../geo/geolocation.ts";
import type { NetworkOwner } from "../geo/network-owner.ts";
import type { AsnIndex } from "../indexes/asn-index.ts";
import type { EvidenceIndex } from "../indexes/evidence-index.ts";
import { NOT_FOUND } from "../indexes/range-index.ts";
import type { LabelIndex } from "../indexes/label-index.ts";
import type { DeclaredLocations } from "../indexes/declared-location-index.ts";
import { FLAG, type ReputationIndex } from "../indexes/reputation-index.ts";
import type { OverrideInForce } from "../overrides/override-lines.ts";
import type { OverrideTable } from "../overrides/override-table.ts";
import { ALL_KINDS, type AsnKindSource, connectionTypeOf, kindsOfNetwork } from "../verdict/network-kinds.ts";
import type { LocalContribution, LocalReportView } from "../verdict/local-reports.ts";
import { type Counters, type Thresholds, type VerdictFlags, verdict } from "../verdict/reputation.ts";
import type { Reputation } from "../verdict/reputation-schema.ts";

/** Every IP dataset of a snapshot, loaded and never changed. */
export interface IpDatasets {
  readonly geo: GeoLookup;
  /** What explanations call the city database ("geolite2"). */
  readonly geoSource: string;
  readonly asn: AsnIndex;
  /** What each ASN index entry's organisation name says of its kinds (`kindsInName`). */
  readonly asnNameKinds: Uint8Array;
  /** Kind bits by AS number, for owners found in an operator's ASN database. */
  readonly kindsByAsn: ReadonlyMap<number, number>;
  /** The lists that gave each AS number its kinds, for explanations. */
  readonly asnKindSources: ReadonlyMap<number, readonly AsnKindSource[]>;
  /** Compiled feeds: counters, kinds, confirmed-bad. */
  readonly feeds: ReputationIndex;
  /** Per IP list: what it says of each range and since when, for explanations. */
  readonly evidence: ReadonlyMap<string, EvidenceIndex>;
  /** Curated ranges: verified crawlers, anycast. */
  readonly curated: ReputationIndex;
  /** What clouds, CDNs and GitHub say their ranges are for, for explanations. */
  readonly labels: LabelIndex;
  /** Where the networks' owners say their ranges are (cloud regions, geofeed rows), which overrides geolocation. */
  readonly locations: DeclaredLocations;
  readonly thresholds: Thresholds;
  /** From an operator's ASN or ISP database, when there is one. */
  readonly ownerLookup: ((ip: ParsedIp) => NetworkOwner | null) | null;
  /** From an operator's connection-type database, when there is one; '' where it has no word. */
  readonly connectionTypeLookup: ((ip: ParsedIp) => string) | null;
  /** data/ip/allowlist.txt's lines in force: allow lines that join the database's. */
  readonly allowlistFile: readonly OverrideInForce[];
  /** The override lines in force, the file's and the database's, compiled: they decide before any feed. */
  readonly overrides: OverrideTable;
}

/** What the datasets say about a global unicast address. */
export interface IpFacts {
  readonly ip: string;
  readonly located: Located;
  /** The declared location that covers the address, NOT_FOUND where none does: where `located` came from, for explanations. */
  readonly locationEntry: number;
  readonly owner: NetworkOwner;
  readonly connectionType: string;
  readonly anycast: boolean;
  readonly reputation: Reputation;
  /** For explanations: the list entries that matched, the kinds from the network, all flags. */
  readonly curatedEntry: number;
  readonly counters: Counters;
  readonly flags: number;
  /** What this deployment's own reports added to the counters; null when none. */
  readonly local: LocalContribution | null;
  /** The operator's line that decided the verdict, or null. */
  readonly override: OverrideInForce | null;
}

export const NO_OWNER: NetworkOwner = Object.freeze({ asn: 0, isp: "", organization: "" });
const ZERO: Counters = Object.freeze({ bot: 0, probe: 0, rate: 0, attack: 0, crawler: 0 });

/**
 * The kinds of an ASN index entry: its AS number's lists and what its organisation's name says. Combined per
 * request rather than for every entry at load: ninety thousand entries fewer to walk before the first answer.
 */
function entryKinds(d: IpDatasets, entry: number): number {
  return kindsOfNetwork(d.kindsByAsn.get(d.asn.asn(entry)) ?? 0, d.asnNameKinds[entry]);
}

/**
 * Geolocation, owner and reputation of a global unicast address: tree walks, binary
 * searches and array reads. `local`, the team's own reports, is one more source whose
 * counts join the feeds' before the verdict (which still applies the allowlist and caps).
 */
export function ipFacts(d: IpDatasets, ip: ParsedIp, local: LocalReportView | null = null): IpFacts {
  const asnEntry = d.asn.entryOf(ip);
  let owner = NO_OWNER;
  let networkKinds = 0;
  const operatorOwner = d.ownerLookup?.(ip);
  if (operatorOwner) {
    owner = operatorOwner;
    networkKinds = d.kindsByAsn.get(operatorOwner.asn) ?? (asnEntry !== NOT_FOUND ? entryKinds(d, asnEntry) : 0);
  } else if (asnEntry !== NOT_FOUND) {
    const organization = d.asn.organization(asnEntry);
    owner = { asn: d.asn.asn(asnEntry), isp: organization, organization };
    networkKinds = entryKinds(d, asnEntry);
  }

  const feedEntry = d.feeds.entryOf(ip);
  const curatedEntry = d.curated.entryOf(ip);
  const override = d.overrides.lookup(ip, owner.asn);
  const listed = d.feeds.flags(feedEntry) | d.curated.flags(curatedEntry) | networkKinds;
  const flags =
    override === null
      ? listed
      : (listed & ~FLAG.denylisted) | (override.action === "allow" ? FLAG.allowlisted : FLAG.denylisted);
  const fromFeeds = feedEntry === NOT_FOUND ? ZERO : d.feeds.counters(feedEntry);
  const reported = local?.contributionOf(ip) ?? null;
  const counters = reported ? added(fromFeeds, reported.counters) : fromFeeds;
  const kinds = flags & ALL_KINDS;
  const locationEntry = d.locations.entryOf(ip);
  return {
    ip: ip.text,
    located: d.locations.locatedAt(locationEntry, d.geo.lookup(ip)),
    locationEntry,
    owner,
    connectionType: d.connectionTypeLookup?.(ip) || connectionTypeOf(kinds),
    anycast: (flags & FLAG.anycast) !== 0,
    reputation: verdict(counters, kinds, verdictFlags(flags), d.thresholds),
    curatedEntry,
    counters,
    flags,
    local: reported,
    override,
  };
}

function added(a: Counters, b: Counters): Counters {
  return {
    bot: a.bot + b.bot,
    probe: a.probe + b.probe,
    rate: a.rate + b.rate,
    attack: a.attack + b.attack,
    crawler: a.crawler + b.crawler,
  };
}

export function verdictFlags(flags: number): VerdictFlags {
  return {
    confirmedBad: (flags & FLAG.confirmedBad) !== 0,
    verifiedCrawler: (flags & FLAG.verifiedCrawler) !== 0,
    anycast: (flags & FLAG.anycast) !== 0,
    relay: (flags & FLAG.relay) !== 0,
    allowlisted: (flags & FLAG.allowlisted) !== 0,
    denylisted: (flags & FLAG.denylisted) !== 0,
  };
}
