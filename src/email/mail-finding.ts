import type { ExemptServer, SharedServer } from "./mail-infrastructure.ts";
import type { MailRoute } from "./mail-route.ts";

/**
 * How the check came by a domain's mail route: looked up now, from the cache, or not at all
 * within the budget (the lookup went on, and fills the cache for the next request), or not
 * started (as many lookups in flight as allowed, for the whole budget).
 */
export type MailLookup = "looked-up" | "cached" | "timed-out" | "skipped";

/** What DNS said of an address's domain when no list decided it (DNS evidence on): the answer carries it, `explain` shows it. */
export interface MailFinding {
  readonly lookup: MailLookup;
  /** Null when the lookup did not answer in time or did not start. */
  readonly route: MailRoute | null;
  /** Its servers that known disposable domains share: when any, the domain is disposable. */
  readonly shared: readonly SharedServer[];
  readonly exempt: readonly ExemptServer[];
  /** Whether mail can reach the domain: false for a null MX or no MX and no address; null when not known. */
  readonly deliverable: boolean | null;
}
