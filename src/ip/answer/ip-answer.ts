import type { ParsedIp } from "../address/parse.ts";
import { isGlobalUnicast } from "../address/special-purpose.ts";
import { countryFlag } from "../geo/country.ts";
import type { NetworkOwner } from "../geo/network-owner.ts";
import { type SourceFacts, explain } from "./explanation.ts";
import { type IpAnswer, IpAnswerSchema } from "./ip-answer-schema.ts";
import type { LocalReportView } from "../verdict/local-reports.ts";
import { ALL_KINDS, kindNames } from "../verdict/network-kinds.ts";
import { CLEAN_REPUTATION } from "../verdict/reputation.ts";
import type { Reputation } from "../verdict/reputation-schema.ts";
import { type IpDatasets, type IpFacts, ipFacts } from "./ip-facts.ts";

/**
 * The IP check's answer as JSON: byte for byte `JSON.stringify(answerObject(…))`,
 * written from the record's JSON parts that the snapshot keeps (`Located`), so a
 * request serialises only its address, owner and verdict. `explainWith`, the
 * snapshot's sources, adds the reasons.
 */
export function ipAnswerJson(
  d: IpDatasets,
  ip: ParsedIp,
  explainWith: Readonly<Record<string, SourceFacts>> | null,
  local: LocalReportView | null = null,
): string {
  return answerJsonFrom(d, ip, answerFacts(d, ip, local), explainWith);
}

/** What an address's answer is made of: its facts, or null for an address that is not global unicast, which gets the private answer. */
export function answerFacts(d: IpDatasets, ip: ParsedIp, local: LocalReportView | null = null): IpFacts | null {
  return isGlobalUnicast(ip) ? ipFacts(d, ip, local) : null;
}

/** `ipAnswerJson` from facts already looked up, for callers that read them too (the scan's summary). */
export function answerJsonFrom(
  d: IpDatasets,
  ip: ParsedIp,
  f: IpFacts | null,
  explainWith: Readonly<Record<string, SourceFacts>> | null,
): string {
  if (f === null) return `{"ip":"${ip.text}",${PRIVATE_TAIL}`;
  const reputation =
    explainWith === null
      ? reputationJson(f.reputation)
      : JSON.stringify({ ...f.reputation, reasons: explain(d, f, ip, explainWith) });
  // Addresses and connection types are plain ASCII without quotes or backslashes.
  return (
    `{"ip":"${f.ip}",${f.located.headJson}"connection_type":"${f.connectionType}","is_anycast":${f.anycast},` +
    `${f.located.tailJson}${ownerJson(f.owner)},"reputation":${reputation}}`
  );
}

/** The answer's "asn": "AS15169 Google LLC", or "" when the owner is unknown. */
export function asnText({ asn, organization }: NetworkOwner): string {
  return asn ? `AS${asn} ${organization}` : "";
}

function ownerJson({ asn, isp, organization }: NetworkOwner): string {
  const quoted = JSON.stringify(organization);
  const ispJson = isp === organization ? quoted : JSON.stringify(isp);
  return `"isp":${ispJson},"organization":${quoted},"asn":${asn ? `"AS${asn} ${quoted.slice(1)}` : '""'}`;
}

/** Every `kind` array (`kindNames` shares one per bitmask) as JSON. */
const KIND_JSON = new Map(
  Array.from({ length: ALL_KINDS + 1 }, (_, bits) => [kindNames(bits), JSON.stringify(kindNames(bits))]),
);

/** JSON.stringify(reputation); its strings are fixed names and its numbers integers. */
function reputationJson(r: Reputation): string {
  return (
    `{"risky":${r.risky},"reputation":"${r.reputation}","bot":${r.bot},"probe":${r.probe},"rate":${r.rate},` +
    `"attack":${r.attack},"crawler":${r.crawler},"sum":${r.sum},"kind":${KIND_JSON.get(r.kind)}}`
  );
}

export function answerObject(
  f: Pick<IpFacts, "ip" | "located" | "owner" | "connectionType" | "anycast" | "reputation">,
): IpAnswer {
  const geo = f.located.geo;
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
    asn: asnText(f.owner),
    reputation: f.reputation,
  };
}

/**
 * Every address that is not global unicast: the schema's fields, each empty (strings), zero
 * (numbers) or false, with a clean reputation and no flag.
 */
export function privateAnswer(ip: string): IpAnswer {
  return { ...PRIVATE_ANSWER, ip };
}

const PRIVATE_ANSWER = Object.fromEntries(
  Object.entries(IpAnswerSchema.properties)
    .filter(([field]) => field !== "flag")
    .map(([field, schema]) => [
      field,
      field === "reputation"
        ? CLEAN_REPUTATION
        : ({ string: "", number: 0, boolean: false } as const)[schema.type as string],
    ]),
) as unknown as IpAnswer;

/** Everything after the address in the private-address answer, which is the same for all. */
const PRIVATE_TAIL = JSON.stringify(privateAnswer("")).slice('{"ip":"",'.length);
