import { isDisposable } from "../../email/classify.ts";
import type { DomainLists } from "../../email/domain-lists.ts";
import type { MailDns } from "../../email/mail-dns.ts";
import { type MailObservation, mailInfrastructure } from "../../email/mail-infrastructure.ts";
import { lookUpMailRoute } from "../../email/mail-route.ts";
import { knownGoodMailDomain, mailServerExemption } from "../../email/mail-server-exemptions.ts";
import { parseIpAddress } from "../../ip/address/parse.ts";
import { isGlobalUnicast } from "../../ip/address/special-purpose.ts";

/** What one update resolves, at most. */
export interface MailServerResolution {
  readonly dns: MailDns;
  /** Domains resolved. */
  readonly domains: number;
  readonly timeMs: number;
  /** Lookups under way at once. */
  readonly inFlight: number;
}

/** What the summary says of the table. */
export interface MailServersReport {
  /** Domains resolved in this update, and of those the lookups that failed (their earlier observation kept). */
  readonly resolved: number;
  readonly failed: number;
  /** Known disposable domains still never resolved, or not for REFRESH_AFTER_SECONDS, when the bounds stopped it. */
  readonly waiting: number;
  readonly seconds: number;
  /** Domains the table is made from, and what it holds. */
  readonly observed: number;
  readonly hosts: number;
  readonly addresses: number;
  readonly exempt: number;
}

/** A domain resolved this recently is not resolved again while others wait. */
export const REFRESH_AFTER_SECONDS = 7 * 86_400;
/** An observation this old is dropped: a service's servers move. */
export const OBSERVATION_RETENTION_SECONDS = 90 * 86_400;
/** Domains the table is made from, at most: its size whatever the lists hold. */
export const MAX_OBSERVED = 100_000;

/**
 * Resolves the mail servers of the known disposable domains (as the staged version serves them
 * under the default rule) within the bounds, most useful first: the names a rolling abuse list
 * (Castle's) carries, then those it remembers, then those a verifying list names, then by how
 * many lists name them; among equals, those never resolved, then those resolved longest ago.
 * The earlier observations of domains still disposable are kept (for OBSERVATION_RETENTION_SECONDS),
 * those resolved again replaced. Addresses outside public unicast space are dropped.
 */
export async function resolveMailServers(
  lists: DomainLists,
  rolling: ReadonlySet<string>,
  previous: readonly MailObservation[],
  resolution: MailServerResolution,
  nowSeconds: number,
): Promise<{ observations: MailObservation[]; report: MailServersReport }> {
  const started = performance.now();
  const kept = new Map<string, MailObservation>();
  for (const o of previous)
    if (o.resolvedAt > nowSeconds - OBSERVATION_RETENTION_SECONDS && isDisposable(lists, o.domain))
      kept.set(o.domain, o);
  const due: { domain: string; rank: number; at: number }[] = [];
  for (const domain of new Set([...lists.disposable, ...lists.disposableWildcard])) {
    if (!isDisposable(lists, domain)) continue;
    const at = kept.get(domain)?.resolvedAt ?? 0;
    if (at > nowSeconds - REFRESH_AFTER_SECONDS) continue;
    due.push({ domain, rank: rankOf(lists, domain, rolling), at });
  }
  due.sort((a, b) => b.rank - a.rank || a.at - b.at || (a.domain < b.domain ? -1 : 1));
  const queue = due.slice(0, resolution.domains).map((d) => d.domain);
  const deadline = performance.now() + resolution.timeMs;
  let resolved = 0;
  let failed = 0;
  let next = 0;
  const worker = async () => {
    while (next < queue.length && performance.now() < deadline) {
      const domain = queue[next++];
      const route = await lookUpMailRoute(resolution.dns, domain);
      if (performance.now() >= deadline) return;
      resolved++;
      if (route.kind === "failed") {
        failed++;
        continue;
      }
      const servers = route.kind === "mx" || route.kind === "address" ? route.servers : [];
      kept.set(domain, {
        domain,
        resolvedAt: nowSeconds,
        hosts: servers.map((s) => s.host),
        addresses: [...new Set(servers.flatMap((s) => s.addresses.filter(isPublic)))],
      });
    }
  };
  let timer: Timer | undefined;
  // At the deadline the lookups under way are abandoned: each answers a failure at once.
  const stop = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      resolution.dns.close();
      resolve();
    }, resolution.timeMs);
  });
  await Promise.race([Promise.all(Array.from({ length: resolution.inFlight }, worker)), stop]);
  clearTimeout(timer);
  const observations = [...kept.values()]
    .sort((a, b) => b.resolvedAt - a.resolvedAt || (a.domain < b.domain ? -1 : 1))
    .slice(0, MAX_OBSERVED);
  const knownGood = knownGoodMailDomain(lists);
  const table = mailInfrastructure(observations, (host) => mailServerExemption(host, knownGood));
  return {
    observations,
    report: {
      resolved,
      failed,
      waiting: due.length - (resolved - failed),
      seconds: Math.round((performance.now() - started) / 100) / 10,
      observed: observations.length,
      hosts: table.hosts.size,
      addresses: table.addresses.size,
      exempt: table.exempt.size,
    },
  };
}

function rankOf(lists: DomainLists, domain: string, rolling: ReadonlySet<string>): number {
  let rank = 0;
  for (const listing of [...lists.evidence.listings(domain, false), ...lists.evidence.listings(domain, true)]) {
    const source = listing.source;
    if (rolling.has(source.name)) rank = Math.max(rank, listing.lastSeen === 0 ? 1000 : 500);
    else if (source.verifies) rank = Math.max(rank, 100);
    rank++;
  }
  return rank;
}

function isPublic(address: string): boolean {
  const parsed = parseIpAddress(address);
  return parsed !== null && isGlobalUnicast(parsed);
}
