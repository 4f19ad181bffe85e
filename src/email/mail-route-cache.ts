import type { MailRoute } from "./mail-route.ts";

export interface MailRouteTtls {
  /** A domain with mail servers. */
  readonly positiveMs: number;
  /** A domain that receives no mail (null MX, no MX and no address). */
  readonly negativeMs: number;
  /** A lookup that failed: asked again soon, not at once, so a failing resolver is not hammered. */
  readonly failureMs: number;
}

/**
 * Routes looked up, each kept for its TTL, at most `maxEntries`: past that the oldest entry
 * goes (a Map keeps insertion order), and an expired one is dropped when it is read.
 */
export class MailRouteCache {
  private readonly entries = new Map<string, { readonly route: MailRoute; readonly expiresMs: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttls: MailRouteTtls,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(domain: string, nowMs: number): MailRoute | undefined {
    const entry = this.entries.get(domain);
    if (entry === undefined) return undefined;
    if (entry.expiresMs > nowMs) return entry.route;
    this.entries.delete(domain);
    return undefined;
  }

  set(domain: string, route: MailRoute, nowMs: number): void {
    const ttl =
      route.kind === "failed"
        ? this.ttls.failureMs
        : route.kind === "mx" || route.kind === "address"
          ? this.ttls.positiveMs
          : this.ttls.negativeMs;
    this.entries.delete(domain);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(domain, { route, expiresMs: nowMs + ttl });
  }
}
