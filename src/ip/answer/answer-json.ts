import { countryFlag } from "../geo/country.ts";
import type { Geolocation } from "../geo/geo-record.ts";
import { type IpFacts, privateAnswer } from "./intelligence.ts";
import type { NetworkOwner } from "../geo/network-owner.ts";
import type { Reputation } from "../verdict/reputation.ts";

/**
 * The IP answer as JSON, byte for byte what JSON.stringify(answerObject(facts))
 * gives, assembled from fragments cached per shared part (network record, owner,
 * reputation), so a request serialises only its address and two small fields.
 */
const geoParts = new WeakMap<Geolocation, { head: string; tail: string }>();
const ownerParts = new WeakMap<NetworkOwner, string>();
const reputationParts = new WeakMap<Reputation, string>();

function geoFragments(geo: Geolocation): { head: string; tail: string } {
  let parts = geoParts.get(geo);
  if (parts === undefined) {
    const head = JSON.stringify({
      country: geo.country,
      country_code: geo.country_code,
      flag: countryFlag(geo.country_code),
      region: geo.region,
      region_name: geo.region_name,
      city: geo.city,
      subdivisions: geo.subdivisions,
    });
    const tail = JSON.stringify({ zip: geo.zip, latitude: geo.latitude, longitude: geo.longitude, timezone: geo.timezone });
    parts = { head: `${head.slice(1, -1)},`, tail: `${tail.slice(1, -1)},` };
    geoParts.set(geo, parts);
  }
  return parts;
}

function ownerFragment(owner: NetworkOwner): string {
  let part = ownerParts.get(owner);
  if (part === undefined) {
    const json = JSON.stringify({ isp: owner.isp, organization: owner.organization, asn: owner.asn ? `AS${owner.asn} ${owner.organization}` : "" });
    part = `${json.slice(1, -1)},`;
    ownerParts.set(owner, part);
  }
  return part;
}

function reputationFragment(reputation: Reputation): string {
  let part = reputationParts.get(reputation);
  if (part === undefined) {
    part = JSON.stringify(reputation);
    reputationParts.set(reputation, part);
  }
  return part;
}

export function answerJson(f: IpFacts): string {
  const geo = geoFragments(f.geo);
  // Addresses and connection types are plain ASCII without quotes or backslashes.
  return (
    `{"ip":"${f.ip}",` +
    geo.head +
    `"connection_type":"${f.connectionType}","is_anycast":${f.anycast},` +
    geo.tail +
    ownerFragment(f.owner) +
    `"reputation":${reputationFragment(f.reputation)}}`
  );
}

/** Everything after the address in the private-address answer, which is the same for all. */
const PRIVATE_TAIL = JSON.stringify(privateAnswer("")).slice('{"ip":"",'.length);

/** JSON.stringify(privateAnswer(ip)), byte for byte. */
export function privateAnswerJson(ip: string): string {
  return `{"ip":"${ip}",${PRIVATE_TAIL}`;
}
