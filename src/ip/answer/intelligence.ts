import type { AsnIndex } from "../indexes/asn-index.ts";
import { countryFlag } from "../geo/country.ts";
import { type Geolocation, UNKNOWN_LOCATION } from "../geo/geo-record.ts";
import type { GeoLookup } from "../geo/geolocation.ts";
import { connectionTypeOf } from "../verdict/network-kinds.ts";
import type { NetworkOwner } from "../geo/network-owner.ts";
import type { ParsedIp } from "../address/parse.ts";
import { NOT_FOUND } from "../indexes/range-index.ts";
import { FLAG, type ReputationIndex } from "../indexes/reputation-index.ts";
import type { AsnKindSource } from "../../datasets/curated-data.ts";
import type { EvidenceIndex } from "../indexes/evidence-index.ts";
import type { Explanation } from "../verdict/explanation.ts";
import { CLEAN_REPUTATION, type Counters, type Reputation, type Thresholds, type VerdictFlags, verdict } from "../verdict/reputation.ts";

export interface IpDatasets {
  readonly geo: GeoLookup;
  readonly asn: AsnIndex;
  /** Kind bits per ASN index entry (curated ASN lists and organisation-name rules). */
  readonly asnKinds: Uint8Array;
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
  readonly thresholds: Thresholds;
  /** From an operator's ASN or ISP database, when there is one. */
  readonly ownerLookup: ((ip: ParsedIp) => NetworkOwner | null) | null;
  /** From an operator's connection-type database, when there is one; '' where it has no word. */
  readonly connectionTypeLookup: ((ip: ParsedIp) => string) | null;
}

/** The spec's IP answer, keys in the spec's order. */
export interface IpAnswer {
  ip: string;
  country: string;
  country_code: string;
  flag?: string;
  region: string;
  region_name: string;
  city: string;
  subdivisions: string;
  connection_type: string;
  is_anycast: boolean;
  zip: string;
  latitude: number;
  longitude: number;
  timezone: string;
  isp: string;
  organization: string;
  asn: string;
  reputation: Reputation | (Reputation & { reasons: Explanation });
}

/**
 * What the datasets say about an address. Its parts are shared between addresses
 * (one Geolocation per network record, one owner per ASN entry, one Reputation per
 * combination of list entry and kinds), so renderers can cache per part.
 */
export interface IpFacts {
  readonly ip: string;
  readonly geo: Geolocation;
  readonly owner: NetworkOwner;
  readonly connectionType: string;
  readonly anycast: boolean;
  readonly reputation: Reputation;
  /** For explanations: the list entries that matched and the kinds from the network. */
  readonly feedEntry: number;
  readonly curatedEntry: number;
  readonly networkKinds: number;
  readonly counters: Counters;
  readonly flags: number;
}

const NO_OWNER: NetworkOwner = Object.freeze({ asn: 0, isp: "", organization: "" });
const ZERO: Counters = Object.freeze({ bot: 0, probe: 0, rate: 0, attack: 0, crawler: 0 });

/** Shared parts, per dataset snapshot: a reload starts afresh. */
const ownersByEntry = new WeakMap<IpDatasets, NetworkOwner[]>();
const reputations = new WeakMap<IpDatasets, Map<number, Reputation>>();

function ownerOfEntry(d: IpDatasets, entry: number): NetworkOwner {
  let owners = ownersByEntry.get(d);
  if (!owners) ownersByEntry.set(d, (owners = []));
  let owner = owners[entry];
  if (owner === undefined) {
    const organization = d.asn.organization(entry);
    owner = owners[entry] = Object.freeze({ asn: d.asn.asn(entry), isp: organization, organization });
  }
  return owner;
}

function countersOf(feeds: ReputationIndex, entry: number): Counters {
  if (entry === NOT_FOUND) return ZERO;
  return { bot: feeds.counter(entry, 0), probe: feeds.counter(entry, 1), rate: feeds.counter(entry, 2), attack: feeds.counter(entry, 3), crawler: feeds.counter(entry, 4) };
}

/** Geolocation, owner and reputation of a global unicast address, from memory only. */
export function ipFacts(d: IpDatasets, ip: ParsedIp): IpFacts {
  const geo = d.geo.lookup(ip);
  const asnEntry = d.asn.entryOf(ip);
  let owner = NO_OWNER;
  let networkKinds = 0;
  const mmdbOwner = d.ownerLookup && d.ownerLookup(ip);
  if (mmdbOwner) {
    owner = mmdbOwner;
    networkKinds = d.kindsByAsn.get(mmdbOwner.asn) ?? (asnEntry !== NOT_FOUND ? d.asnKinds[asnEntry] : 0);
  } else if (asnEntry !== NOT_FOUND) {
    owner = ownerOfEntry(d, asnEntry);
    networkKinds = d.asnKinds[asnEntry];
  }

  const feedEntry = d.feeds.entryOf(ip);
  const curatedEntry = d.curated.entryOf(ip);
  const flags = d.feeds.flags(feedEntry) | d.curated.flags(curatedEntry) | networkKinds;
  const counters = countersOf(d.feeds, feedEntry);

  let cache = reputations.get(d);
  if (!cache) reputations.set(d, (cache = new Map()));
  const key = (feedEntry + 1) * 0x10000 + (flags & 0xffff);
  let reputation = cache.get(key);
  if (reputation === undefined) {
    reputation = Object.freeze(verdict(counters, flags & 0x7f, verdictFlags(flags), d.thresholds));
    cache.set(key, reputation);
  }
  const kinds = flags & 0x7f;
  return {
    ip: ip.text,
    geo,
    owner,
    connectionType: (d.connectionTypeLookup && d.connectionTypeLookup(ip)) || connectionTypeOf(kinds),
    anycast: (flags & FLAG.anycast) !== 0,
    reputation,
    feedEntry,
    curatedEntry,
    networkKinds,
    counters,
    flags,
  };
}

export function verdictFlags(flags: number): VerdictFlags {
  return {
    confirmedBad: (flags & FLAG.confirmedBad) !== 0,
    verifiedCrawler: (flags & FLAG.verifiedCrawler) !== 0,
    anycast: (flags & FLAG.anycast) !== 0,
    allowlisted: (flags & FLAG.allowlisted) !== 0,
    denylisted: (flags & FLAG.denylisted) !== 0,
  };
}

export function answerObject(f: Pick<IpFacts, "ip" | "geo" | "owner" | "connectionType" | "anycast" | "reputation">): IpAnswer {
  const geo = f.geo;
  return {
    ip: f.ip,
    country: geo.country,
    country_code: geo.country_code,
    flag: countryFlag(geo.country_code),
    region: geo.region,
    region_name: geo.region_name,
    city: geo.city,
    subdivisions: geo.subdivisions,
    connection_type: f.connectionType,
    is_anycast: f.anycast,
    zip: geo.zip,
    latitude: geo.latitude,
    longitude: geo.longitude,
    timezone: geo.timezone,
    isp: f.owner.isp,
    organization: f.owner.organization,
    asn: f.owner.asn ? `AS${f.owner.asn} ${f.owner.organization}` : "",
    reputation: f.reputation,
  };
}

/** Every address that is not global unicast: empty strings, zeros, clean reputation, no flag. */
export function privateAnswer(ip: string): IpAnswer {
  const { flag: _, ...answer } = answerObject({ ip, geo: UNKNOWN_LOCATION, owner: NO_OWNER, connectionType: "", anycast: false, reputation: CLEAN_REPUTATION });
  return answer;
}
