import type { Reader, Response as MmdbRecord } from "maxmind";
import type { AsnIndex } from "./asn-index.ts";
import { countryFlag } from "./country.ts";
import type { GeoLookup } from "./geolocation.ts";
import { connectionTypeOf } from "./network-kinds.ts";
import { type NetworkOwner, connectionTypeFromMmdb, ownerFromMmdb } from "./network-owner.ts";
import type { ParsedIp } from "./parse.ts";
import { FLAG, type ReputationIndex } from "./reputation-index.ts";
import { CLEAN_REPUTATION, type Counters, type Reputation, type Rule, type Thresholds, levelOf, verdict } from "./reputation.ts";
import { NOT_FOUND } from "./range-index.ts";

export interface IpDatasets {
  readonly geo: GeoLookup;
  readonly asn: AsnIndex;
  /** Kind bits per ASN index entry (curated ASN lists and organisation-name rules). */
  readonly asnKinds: Uint8Array;
  /** Kind bits by AS number, for owners found in an operator's ASN database. */
  readonly kindsByAsn: ReadonlyMap<number, number>;
  /** Compiled feeds: counters, kinds, confirmed-bad. */
  readonly feeds: ReputationIndex;
  /** Curated ranges: verified crawlers, anycast. */
  readonly curated: ReputationIndex;
  readonly thresholds: Thresholds;
  readonly ownerMmdb: Reader<MmdbRecord> | null;
  readonly connectionTypeMmdb: Reader<MmdbRecord> | null;
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

export interface Explanation {
  rule: Rule;
  sources: string[];
  network_kinds_from: string[];
}

/** Every address that is not global unicast: empty strings, zeros, clean reputation, no flag. */
export function privateAnswer(ip: string): IpAnswer {
  return {
    ip,
    country: "",
    country_code: "",
    region: "",
    region_name: "",
    city: "",
    subdivisions: "",
    connection_type: "",
    is_anycast: false,
    zip: "",
    latitude: 0,
    longitude: 0,
    timezone: "",
    isp: "",
    organization: "",
    asn: "",
    reputation: CLEAN_REPUTATION,
  };
}

const NO_OWNER: NetworkOwner = Object.freeze({ asn: 0, isp: "", organization: "" });

/** Geolocation, owner and reputation of a global unicast address, from memory only. */
export function answerFor(d: IpDatasets, ip: ParsedIp, explain = false): IpAnswer {
  const geo = d.geo.lookup(ip);
  const asnEntry = d.asn.entryOf(ip);
  let owner = NO_OWNER;
  let networkKinds = 0;
  const mmdbOwner = d.ownerMmdb && ownerFromMmdb(d.ownerMmdb, ip);
  if (mmdbOwner) {
    owner = mmdbOwner;
    networkKinds = d.kindsByAsn.get(mmdbOwner.asn) ?? (asnEntry !== NOT_FOUND ? d.asnKinds[asnEntry] : 0);
  } else if (asnEntry !== NOT_FOUND) {
    const organization = d.asn.organization(asnEntry);
    owner = { asn: d.asn.asn(asnEntry), isp: organization, organization };
    networkKinds = d.asnKinds[asnEntry];
  }

  const feedEntry = d.feeds.entryOf(ip);
  const curatedEntry = d.curated.entryOf(ip);
  const flags = d.feeds.flags(feedEntry) | d.curated.flags(curatedEntry);
  const kinds = (flags | networkKinds) & 0x7f;
  const counters: Counters =
    feedEntry === NOT_FOUND
      ? ZERO
      : { bot: d.feeds.counter(feedEntry, 0), probe: d.feeds.counter(feedEntry, 1), rate: d.feeds.counter(feedEntry, 2), attack: d.feeds.counter(feedEntry, 3), crawler: d.feeds.counter(feedEntry, 4) };
  const verdictFlags = { confirmedBad: (flags & FLAG.confirmedBad) !== 0, verifiedCrawler: (flags & FLAG.verifiedCrawler) !== 0, allowlisted: (flags & FLAG.allowlisted) !== 0 };
  let reputation: IpAnswer["reputation"] = verdict(counters, kinds, verdictFlags, d.thresholds);
  if (explain) {
    reputation = {
      ...reputation,
      reasons: {
        rule: levelOf(counters, kinds, verdictFlags, d.thresholds).rule,
        sources: [...d.feeds.sources(feedEntry), ...d.curated.sources(curatedEntry)],
        network_kinds_from: networkKinds ? [`AS${owner.asn} ${owner.organization}`] : [],
      },
    };
  }

  const code = geo?.country_code ?? "";
  return {
    ip: ip.text,
    country: geo?.country ?? "",
    country_code: code,
    flag: countryFlag(code),
    region: geo?.region ?? "",
    region_name: geo?.region_name ?? "",
    city: geo?.city ?? "",
    subdivisions: geo?.subdivisions ?? "",
    connection_type: d.connectionTypeMmdb ? connectionTypeFromMmdb(d.connectionTypeMmdb, ip) || connectionTypeOf(kinds) : connectionTypeOf(kinds),
    is_anycast: (flags & FLAG.anycast) !== 0,
    zip: geo?.zip ?? "",
    latitude: geo?.latitude ?? 0,
    longitude: geo?.longitude ?? 0,
    timezone: geo?.timezone ?? "",
    isp: owner.isp,
    organization: owner.organization,
    asn: owner.asn ? `AS${owner.asn} ${owner.organization}` : "",
    reputation,
  };
}

const ZERO: Counters = Object.freeze({ bot: 0, probe: 0, rate: 0, attack: 0, crawler: 0 });
