import type { DomainLists } from "./domain-lists.ts";
import { nearest } from "./domain-name.ts";
import type { EmailAnswer } from "./email-answer-schema.ts";
import type { MailDns } from "./mail-dns.ts";
import type { MailFinding, MailLookup } from "./mail-finding.ts";
import { matchMailServers } from "./mail-infrastructure.ts";
import { type MailRoute, deliverable, lookUpMailRoute } from "./mail-route.ts";
import { MailRouteCache } from "./mail-route-cache.ts";
import { knownGoodMailDomain, mailServerExemption } from "./mail-server-exemptions.ts";
import { overrideFor } from "./overrides.ts";

export interface MailEvidenceSettings {
  /** How long a check waits for DNS: past it, the lists answer. */
  readonly budgetMs: number;
  readonly cacheSize: number;
  readonly cacheTtlMs: number;
  readonly negativeTtlMs: number;
  /** Lookups under way at once, at most. */
  readonly inFlight: number;
}

/** A failed lookup is asked again after this (a failing resolver is not asked at every request). */
export const FAILURE_TTL_MS = 30_000;

/** What /metrics shows of the mail evidence. */
export interface MailEvidenceCounts {
  /** Lookups started, and how the finished ones ended. */
  lookups: number;
  failed: number;
  cacheHits: number;
  /** Checks that waited the whole budget for a lookup under way and were answered from the lists. */
  timeouts: number;
  /** Checks answered from the lists because as many lookups as allowed were under way for the whole budget. */
  skipped: number;
  /** Answers that the mail servers made disposable. */
  decided: number;
}

interface Waiting {
  readonly domain: string;
  readonly start: () => void;
}

/**
 * The email check's DNS evidence: for a domain no list decides, where its mail goes, from a
 * bounded cache or looked up within a strict time budget, with a cap on lookups in flight. A
 * domain whose mail servers known disposable domains share is disposable; one that can receive
 * no mail is said so. Answers that need no lookup come back at once, never as a promise.
 */
export class MailEvidence {
  readonly counts: MailEvidenceCounts = { lookups: 0, failed: 0, cacheHits: 0, timeouts: 0, skipped: 0, decided: 0 };
  private readonly cache: MailRouteCache;
  private readonly running = new Map<string, Promise<MailRoute>>();
  /** Checks waiting for a free lookup, first come first; each leaves when its budget runs out. */
  private readonly waiting = new Set<Waiting>();
  /** Each cached route's match, with the lists it was made against, and the finding a cached answer carries. */
  private readonly matches = new WeakMap<
    MailRoute,
    { readonly lists: DomainLists; readonly matched: Matched; readonly cached: MailFinding }
  >();

  constructor(
    private readonly dns: MailDns,
    private readonly settings: MailEvidenceSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.cache = new MailRouteCache(settings.cacheSize, {
      positiveMs: settings.cacheTtlMs,
      negativeMs: settings.negativeTtlMs,
      failureMs: Math.min(FAILURE_TTL_MS, settings.negativeTtlMs),
    });
  }

  /** Lookups under way. */
  get inFlight(): number {
    return this.running.size;
  }

  get cached(): number {
    return this.cache.size;
  }

  /** Whether a lookup could start now: `scan` waits for one rather than answer a row from the lists. */
  get hasRoom(): boolean {
    return this.running.size < this.settings.inFlight;
  }

  /**
   * The answer with what DNS says, when no list decided it: at once from the cache, else within
   * the budget. An answer a list decided comes back as it is.
   */
  consult(lists: DomainLists, answer: EmailAnswer): EmailAnswer | Promise<EmailAnswer> {
    if (listsDecide(lists, answer)) return answer;
    const { domain } = answer;
    const cached = this.cache.get(domain, this.now());
    if (cached !== undefined) {
      this.counts.cacheHits++;
      return this.found(lists, answer, cached, "cached");
    }
    return new Promise<EmailAnswer>((resolve) => {
      let started = false;
      const waiting: Waiting = {
        domain,
        start: () => {
          started = true;
          this.lookUp(domain).then((route) => {
            if (timer === undefined) return;
            clearTimeout(timer);
            timer = undefined;
            resolve(this.found(lists, answer, route, "looked-up"));
          });
        },
      };
      let timer: Timer | undefined = setTimeout(() => {
        timer = undefined;
        this.waiting.delete(waiting);
        if (started) this.counts.timeouts++;
        else this.counts.skipped++;
        resolve(this.found(lists, answer, null, started ? "timed-out" : "skipped"));
      }, this.settings.budgetMs);
      if (this.running.has(domain) || this.hasRoom) waiting.start();
      else this.waiting.add(waiting);
    });
  }

  /** Abandons the lookups under way (a stopping server, the end of a scan). */
  close(): void {
    this.dns.close();
  }

  /** The lookup of `domain` under way, or a new one; its route fills the cache, and the next waiting check starts. */
  private lookUp(domain: string): Promise<MailRoute> {
    let lookup = this.running.get(domain);
    if (lookup !== undefined) return lookup;
    this.counts.lookups++;
    lookup = lookUpMailRoute(this.dns, domain).then((route) => {
      if (route.kind === "failed") this.counts.failed++;
      this.cache.set(domain, route, this.now());
      this.running.delete(domain);
      this.startWaiting();
      return route;
    });
    this.running.set(domain, lookup);
    return lookup;
  }

  private startWaiting(): void {
    for (const next of this.waiting) {
      if (!this.hasRoom) return;
      this.waiting.delete(next);
      next.start();
    }
  }

  private found(lists: DomainLists, answer: EmailAnswer, route: MailRoute | null, lookup: MailLookup): EmailAnswer {
    const mail = route === null ? { lookup, route, ...UNMATCHED } : this.finding(lists, route, lookup);
    const disposable = mail.shared.length > 0;
    if (disposable) this.counts.decided++;
    const { email, domain, free_email } = answer;
    return { email, is_disposable: disposable, domain, free_email, mail };
  }

  /**
   * The route's servers matched against the version's table, once per route and version (a
   * reload brings another table): an answer from the cache reads the finding made for it.
   */
  private finding(lists: DomainLists, route: MailRoute, lookup: MailLookup): MailFinding {
    let known = this.matches.get(route);
    if (known === undefined || known.lists !== lists) {
      const exemption = (host: string) => mailServerExemption(host, knownGoodMailDomain(lists));
      const matched = { ...matchMailServers(lists.mailServers, route, exemption), deliverable: deliverable(route) };
      known = { lists, matched, cached: { lookup: "cached", route, ...matched } };
      this.matches.set(route, known);
    }
    return lookup === "cached" ? known.cached : { lookup, route, ...known.matched };
  }
}

type Matched = Pick<MailFinding, "shared" | "exempt" | "deliverable">;

const UNMATCHED: Matched = { shared: [], exempt: [], deliverable: null };

/** A list decided the answer: disposable, free, an override line, or the allowlist (privacy relays included). */
function listsDecide(lists: DomainLists, a: EmailAnswer): boolean {
  if (a.is_disposable || a.free_email) return true;
  if (lists.overrides.size !== 0 && overrideFor(lists.overrides, a.domain) !== undefined) return true;
  return nearest(a.domain, (name) => (lists.allow.has(name) ? true : undefined)) === true;
}
