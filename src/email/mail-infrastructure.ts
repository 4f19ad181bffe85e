import type { MailRoute } from "./mail-route.ts";
import { registrableOfNormalised } from "./public-suffix.ts";

/** One disposable domain's mail servers, as an `update` resolved them. */
export interface MailObservation {
  readonly domain: string;
  /** When, in seconds. */
  readonly resolvedAt: number;
  /** Its MX hosts (or, without MX, the domain itself); none when it receives no mail. */
  readonly hosts: readonly string[];
  /** Their addresses, public ones only. */
  readonly addresses: readonly string[];
}

/** A mail server behind known disposable domains: how many (registrable domains: one service's subdomains count once), a few of them. */
export interface SharedBy {
  readonly domains: number;
  readonly examples: readonly string[];
}

/** The disposable mail infrastructure a version knows: what the check matches a domain's mail servers against. */
export interface MailInfrastructure {
  readonly hosts: ReadonlyMap<string, SharedBy>;
  readonly addresses: ReadonlyMap<string, SharedBy>;
  /** Hosts seen behind disposable domains that never count, with why (mail-server-exemptions.ts). */
  readonly exempt: ReadonlyMap<string, string>;
  /** Disposable domains resolved. */
  readonly observed: number;
}

/**
 * A server counts once it serves this many disposable registrable domains: one alone may merely
 * be hosted there, beside any number of ordinary ones; a service that rotates domains over its
 * servers shows at once.
 */
export const MIN_SHARING_DOMAINS = 2;

/** Examples kept per server, for `explain`. */
const EXAMPLES = 3;

/**
 * The table from the observations: every host and address behind at least MIN_SHARING_DOMAINS
 * disposable registrable domains, less the exempt hosts (`exemptionOf`, with their addresses).
 */
export function mailInfrastructure(
  observations: readonly MailObservation[],
  exemptionOf: (host: string) => string | null,
): MailInfrastructure {
  const exempt = new Map<string, string>();
  const exemptAddresses = new Set<string>();
  const hosts = new Map<string, Set<string>>();
  const addresses = new Map<string, Set<string>>();
  const add = (into: Map<string, Set<string>>, key: string, domain: string) => {
    let domains = into.get(key);
    if (domains === undefined) into.set(key, (domains = new Set()));
    domains.add(domain);
  };
  const exemptHosts = (o: MailObservation) =>
    o.hosts.filter((host) => {
      const why = exempt.get(host) ?? exemptionOf(host);
      if (why !== null) exempt.set(host, why);
      return why !== null;
    });
  for (const o of observations) {
    const registrable = registrableOfNormalised(o.domain) ?? o.domain;
    // A domain served by an exempt host is one of that provider's customers: none of its servers counts.
    if (exemptHosts(o).length > 0) {
      for (const a of o.addresses) exemptAddresses.add(a);
      continue;
    }
    for (const host of o.hosts) if (host !== o.domain) add(hosts, host, registrable);
    for (const a of o.addresses) add(addresses, a, registrable);
  }
  const shared = (from: Map<string, Set<string>>, skip: ReadonlySet<string>) => {
    const table = new Map<string, SharedBy>();
    for (const [key, domains] of from)
      if (domains.size >= MIN_SHARING_DOMAINS && !skip.has(key))
        table.set(key, { domains: domains.size, examples: [...domains].sort().slice(0, EXAMPLES) });
    return table;
  };
  return {
    hosts: shared(hosts, new Set()),
    addresses: shared(addresses, exemptAddresses),
    exempt,
    observed: observations.length,
  };
}

/** A server of the domain's that known disposable domains share. */
export interface SharedServer {
  readonly server: string;
  readonly by: "host" | "address";
  readonly domains: number;
  readonly examples: readonly string[];
}

/** A server of the domain's that the table never counts, with why. */
export interface ExemptServer {
  readonly server: string;
  readonly reason: string;
}

/** Which of the route's servers the table knows as disposable infrastructure, and which are exempt. */
export function matchMailServers(
  table: MailInfrastructure,
  route: MailRoute,
  exemptionOf: (host: string) => string | null,
): { shared: SharedServer[]; exempt: ExemptServer[] } {
  const shared: SharedServer[] = [];
  const exempt: ExemptServer[] = [];
  if (route.kind !== "mx" && route.kind !== "address") return { shared, exempt };
  for (const { host, addresses } of route.servers) {
    const why = table.exempt.get(host) ?? (route.kind === "mx" ? exemptionOf(host) : null);
    if (why !== null) {
      exempt.push({ server: host, reason: why });
      continue;
    }
    const byHost = table.hosts.get(host);
    if (byHost !== undefined) shared.push({ server: host, by: "host", ...byHost });
    for (const a of addresses) {
      const byAddress = table.addresses.get(a);
      if (byAddress !== undefined) shared.push({ server: a, by: "address", ...byAddress });
    }
  }
  return { shared, exempt };
}
