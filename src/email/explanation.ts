import { isDisposable } from "./classify.ts";
import type { DecidingRule, EmailReasons, SourceReason } from "./email-answer-schema.ts";
import type { Listing } from "./disposable-evidence.ts";
import type { DomainLists } from "./domain-lists.ts";
import { type EvidenceStrength, evidenceStrength } from "./evidence-rule.ts";
import type { MailFinding } from "./mail-finding.ts";
import { localPartOf, normalisedAddress } from "./normalised-address.ts";
import { type OverrideLine, overrideFor } from "./overrides.ts";
import { relayServiceOf } from "./relay-services.ts";
import { isReserved } from "./reserved-names.ts";
import { isRoleAccount } from "./role-accounts.ts";
import { didYouMean } from "./typo-hint.ts";

/** What the free list's names came from, for `free`. */
export interface FreeListNames {
  /** The sources that feed the free list (from the version's manifest). */
  readonly sources: readonly string[];
}

const iso = (seconds: number) => (seconds > 0 ? new Date(seconds * 1000).toISOString() : null);

/**
 * Why `domain` (normalised) gets the verdict it gets; `address` is the address as
 * checked. Follows `isDisposable` step by step and names what decided; a test holds the
 * two to the same verdict. `mail`: what DNS said of a domain no list decided (DNS evidence on).
 */
export function explainEmail(
  lists: DomainLists,
  address: string,
  domain: string,
  free: FreeListNames,
  mail?: MailFinding,
): EmailReasons {
  const sources: SourceReason[] = [];
  const add = (listings: readonly Listing[], entry: string, match: SourceReason["match"]) => {
    for (const { source, firstSeen, lastSeen } of listings) {
      sources.push({
        source: source.name,
        entry,
        match,
        first_seen: iso(firstSeen),
        last_seen: lastSeen > 0 ? iso(lastSeen) : source.checkedAt,
        remembered: lastSeen > 0,
        verifies: source.verifies,
        copies: [...source.copies],
      });
    }
  };
  const exact = lists.evidence.listings(domain, false);
  add(exact, domain, "exact");
  add(lists.evidence.listings(domain, true), domain, "wildcard");
  for (const parent of parentsOf(domain)) {
    add(lists.evidence.listings(parent, true), parent, "wildcard");
    if (!lists.disposableSuffixes.has(parent)) add(lists.evidence.listings(parent, false), parent, "parent");
  }
  const decided = decide(lists, domain, sources, mail);
  const strength = evidenceStrength(witnessesOf(lists, decided.matched ?? domain, sources));
  const isFree = !isDisposable(lists, domain) && lists.free.has(domain);
  const parts = localPartOf(address);
  const normalised = normalisedAddress(parts, domain);
  const relay = relayServiceOf(domain);
  const typo = didYouMean(domain, (name) => lists.free.has(name));
  return {
    rule: decided.rule,
    matched: decided.matched,
    evidence_rule: lists.rule,
    evidence: strength,
    confidence: confidenceOf(decided.rule, strength),
    sources,
    ...(decided.override ? { override: { ...decided.override } } : {}),
    ...(decided.allowlisted
      ? { allowlist: { entry: decided.allowlisted, reason: lists.allowReasons.get(decided.allowlisted) ?? null } }
      : {}),
    ...(isFree
      ? {
          free: {
            list: lists.freeSupplement.has(domain)
              ? "operator-free-providers"
              : free.sources.join(", ") || "free-domains",
          },
        }
      : {}),
    ...(relay ? { relay: { service: relay } } : {}),
    ...(decided.rule === "family" && decided.matched
      ? { family: { domain: decided.matched, members: lists.families.get(decided.matched)! } }
      : {}),
    ...(mail ? { mail: mailReason(mail) } : {}),
    ...(typo ? { did_you_mean: typo } : {}),
    role_account: isRoleAccount(normalised.local),
    normalized: normalised.address,
  };
}

interface Decision {
  readonly rule: DecidingRule;
  readonly matched: string | null;
  readonly override?: OverrideLine;
  readonly allowlisted?: string;
}

function decide(lists: DomainLists, domain: string, sources: readonly SourceReason[], mail?: MailFinding): Decision {
  const line = lists.overrides.size ? overrideFor(lists.overrides, domain) : undefined;
  if (line)
    return { rule: line.action === "deny" ? "denylisted" : "allowlisted", matched: line.domain, override: line };
  const relay = relayServiceOf(domain);
  const allowed = [domain, ...parentsOf(domain)].find((name) => lists.allow.has(name));
  if (allowed !== undefined)
    return relay
      ? { rule: "relay", matched: allowed }
      : { rule: "allowlisted", matched: allowed, allowlisted: allowed };
  if (lists.disposable.has(domain)) return { rule: "listed", matched: domain };
  if (lists.disposableWildcard.has(domain)) return { rule: "wildcard", matched: domain };
  if (isReserved(domain)) return { rule: "reserved-name", matched: domain };
  for (const parent of parentsOf(domain)) {
    if (lists.disposableWildcard.has(parent)) return { rule: "wildcard", matched: parent };
    if (lists.disposable.has(parent) && !lists.disposableSuffixes.has(parent))
      return { rule: "parent-listed", matched: parent };
  }
  const family = [domain, ...parentsOf(domain)].find((name) => lists.families.has(name));
  if (family !== undefined) return { rule: "family", matched: family };
  const shared = mail?.shared[0];
  if (shared !== undefined) return { rule: "mail-servers", matched: shared.server };
  const first = sources[0];
  if (first === undefined) return { rule: "not-listed", matched: null };
  return { rule: lists.heldBack.has(first.entry) ? "disputed" : "below-evidence", matched: first.entry };
}

/** The listings of the entry that decided, as the evidence rule sees them. */
function witnessesOf(lists: DomainLists, entry: string, sources: readonly SourceReason[]) {
  const names = new Set(sources.filter((s) => s.entry === entry).map((s) => s.source));
  return lists.evidence.sources.filter((s) => names.has(s.name));
}

function confidenceOf(rule: DecidingRule, strength: EvidenceStrength): EmailReasons["confidence"] {
  switch (rule) {
    case "denylisted":
    case "allowlisted":
    case "relay":
    case "reserved-name":
      return "high";
    case "listed":
    case "wildcard":
    case "parent-listed":
      return strength === "verified" || strength === "independent" ? "high" : "medium";
    case "family":
    case "mail-servers":
    case "not-listed":
      return "medium";
    default:
      return "low";
  }
}

function mailReason(m: MailFinding): NonNullable<EmailReasons["mail"]> {
  const route = m.route;
  return {
    lookup: m.lookup,
    deliverable: m.deliverable,
    route: route?.kind ?? null,
    servers: route !== null && "servers" in route ? route.servers : [],
    shared: m.shared,
    exempt: m.exempt,
  };
}

/** `a.b.example.com` → `b.example.com`, `example.com`: parents, stopping before the bare top-level label. */
function parentsOf(domain: string): string[] {
  const parents: string[] = [];
  for (let dot = domain.indexOf("."); dot !== -1; ) {
    const next = domain.indexOf(".", dot + 1);
    if (next === -1) break;
    parents.push(domain.slice(dot + 1));
    dot = next;
  }
  return parents;
}
