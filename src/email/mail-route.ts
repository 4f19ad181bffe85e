import { normaliseDomain } from "./domain-name.ts";
import type { MailDns } from "./mail-dns.ts";

/** A mail server of a domain: an MX host (or, without MX, the domain itself) and its addresses. */
export interface MailServer {
  readonly host: string;
  readonly addresses: readonly string[];
}

/**
 * Where a domain's mail goes, as DNS says: to its MX hosts; to the domain's own address when it
 * publishes no MX (RFC 5321's implicit MX); nowhere (a null MX, RFC 7505; or no MX and no
 * address, the domain not existing included); or unknown, the lookup having failed.
 */
export type MailRoute =
  | { readonly kind: "mx" | "address"; readonly servers: readonly MailServer[] }
  | { readonly kind: "null-mx" | "no-mail" }
  | { readonly kind: "failed"; readonly reason: string };

/** MX hosts looked at, lowest preference first: more are fallbacks that say nothing more of who runs the mail. */
export const MAX_MAIL_HOSTS = 4;

/** Whether mail can reach the domain at all: null when the lookup failed. */
export function deliverable(route: MailRoute): boolean | null {
  return route.kind === "failed" ? null : route.kind === "mx" || route.kind === "address";
}

/** Looks up where `domain`'s mail goes: its MX, then each MX host's addresses (or the domain's own, without MX). Never rejects. */
export async function lookUpMailRoute(dns: MailDns, domain: string): Promise<MailRoute> {
  try {
    const mx = await dns.mx(domain);
    if ("failed" in mx) return { kind: "failed", reason: mx.failed };
    if ("none" in mx) {
      const own = await dns.addresses(domain);
      if ("failed" in own) return { kind: "failed", reason: own.failed };
      if ("none" in own) return { kind: "no-mail" };
      return { kind: "address", servers: [{ host: domain, addresses: uniqueAddresses(own.records) }] };
    }
    const hosts = mxHosts(mx.records);
    // RFC 7505: a null MX is the one record "."; MX records that name no host name lead nowhere either.
    if (hosts.length === 0) return { kind: mx.records.some(isNullMx) ? "null-mx" : "no-mail" };
    const servers = await Promise.all(
      hosts.map(async (host): Promise<MailServer> => {
        const a = await dns.addresses(host);
        return { host, addresses: "records" in a ? uniqueAddresses(a.records) : [] };
      }),
    );
    return { kind: "mx", servers };
  } catch (err) {
    return { kind: "failed", reason: (err as Error).message };
  }
}

/** The MX hosts, lowest preference first, normalised, without the null MX's "." and without names that are no host names. */
function mxHosts(records: readonly { exchange: string; priority: number }[]): string[] {
  const hosts: string[] = [];
  for (const r of [...records].sort((a, b) => a.priority - b.priority)) {
    const host = normaliseDomain(r.exchange.endsWith(".") ? r.exchange.slice(0, -1) : r.exchange);
    if (host !== null && !hosts.includes(host)) hosts.push(host);
    if (hosts.length === MAX_MAIL_HOSTS) break;
  }
  return hosts;
}

function isNullMx(r: { exchange: string }): boolean {
  return r.exchange === "" || r.exchange === ".";
}

function uniqueAddresses(addresses: readonly string[]): string[] {
  return [...new Set(addresses.map((a) => a.toLowerCase()))];
}
