import { isDisposable } from "./classify.ts";
import { type CompiledEvidence, compileEvidence } from "./compiled-evidence.ts";
import { families } from "./families.ts";
import { nearest, normaliseDomain } from "./domain-name.ts";
import { isReserved } from "./reserved-names.ts";
import { looksThrowaway } from "./throwaway-name.ts";
import type { ListedNames } from "./listed-names.ts";
import { type DomainSet, PackedDomainSet } from "./packed-domain-set.ts";
import type { DisposableEvidence, SourceInput } from "./disposable-evidence.ts";
import { DEFAULT_EVIDENCE_RULE, type EvidenceRule } from "./evidence-rule.ts";
import type { OverrideLine } from "./overrides.ts";
import { publicSuffixOfNormalised } from "./public-suffix.ts";
import { RELAY_DOMAINS } from "./relay-services.ts";
import { type MailInfrastructure, type MailObservation, mailInfrastructure } from "./mail-infrastructure.ts";
import { knownGoodMailDomain, mailServerExemption } from "./mail-server-exemptions.ts";

export interface DomainListInput {
  disposable: readonly string[];
  disposableWildcard: readonly string[];
  free: readonly string[];
  /** Curated consumer providers the free list lacks: kept even where their name alone would be refused. */
  freeSupplement: readonly string[];
  allow: readonly string[];
  /** Each disposable list apart, with its lineage; when given, `disposable` and `disposableWildcard` are not read. */
  sources?: readonly SourceInput[];
  /** The lists already compiled (what a version holds); when given, the three fields above are not read. */
  compiled?: CompiledEvidence;
  rule?: EvidenceRule;
  /** Disputed names `update` held back: listed, but not served until an operator settles them. */
  heldBack?: readonly string[];
  /** The operator allowlist's reasons (a line's comment), by domain. */
  allowReasons?: ReadonlyMap<string, string>;
  /** How many listed subdomains make a family: FAMILY_MEMBERS unless a measurement tries others (bench/castle-replay.ts). */
  familyMembers?: number;
  /** The disposable domains' mail servers as `update` resolved them (DNS evidence). */
  mailObservations?: readonly MailObservation[];
}

/** The two large lists, probed on every check, are packed; the three small ones are plain sets. */
export interface DomainLists {
  readonly disposable: DomainSet;
  /** Listed domains that are public suffixes: they flag themselves, never their subdomains. */
  readonly disposableSuffixes: DomainSet;
  readonly disposableWildcard: DomainSet;
  /** Registrable domains under which enough listed names lie that it and all its names are disposable, with their count. */
  readonly families: ReadonlyMap<string, number>;
  /** Consumer mailbox providers: never disposable, a public suffix, a reserved name or a throwaway-looking name. */
  readonly free: DomainSet;
  readonly allow: DomainSet;
  /** The operator's override lines in force, by domain; most specific wins, over every list. */
  readonly overrides: ReadonlyMap<string, OverrideLine>;
  /** Each list's entries, for counting witnesses and for `explain`. */
  readonly evidence: DisposableEvidence;
  /** Every listed name of each kind with its strength: what `disposable` and `disposableWildcard` serve under `rule`. */
  readonly listed: { readonly exact: ListedNames; readonly wildcard: ListedNames };
  readonly rule: EvidenceRule;
  /** Listed names whose evidence falls short of the rule. */
  readonly belowEvidence: number;
  readonly heldBack: DomainSet;
  readonly freeSupplement: DomainSet;
  readonly allowReasons: ReadonlyMap<string, string>;
  /** The mail servers known disposable domains share, less the exempt ones: what DNS evidence matches against. */
  readonly mailServers: MailInfrastructure;
}

export type DroppedCounts = Record<"disposable" | "disposableWildcard" | "free" | "freeSupplement" | "allow", number>;

/** What became of the free list's names. */
export interface FreeListReport {
  /** Names from the free sources and the supplement. */
  readonly candidates: number;
  readonly kept: number;
  readonly disposable: number;
  readonly throwawayName: number;
  readonly suffixOrReserved: number;
  /** Under an academic or government suffix: addresses of an institution's members. */
  readonly institutional: number;
}

const INSTITUTIONAL_SUFFIX = /(^|\.)(edu|ac|gov|mil|sch|k12)(\.|$)/;

/**
 * Normalises every entry like an address's domain; entries that are not domains are
 * dropped and counted. A free provider is kept only when it is none of: disposable
 * (after the allowlist), a public suffix, a reserved name, under an academic or
 * government suffix (`.edu`, `ac.uk`, `edu.sg` …), or — unless curated or allowlisted —
 * a name that reads like a throwaway service.
 */
export function buildDomainLists(input: DomainListInput): {
  lists: DomainLists;
  dropped: DroppedCounts;
  free: FreeListReport;
} {
  const dropped: DroppedCounts = { disposable: 0, disposableWildcard: 0, free: 0, freeSupplement: 0, allow: 0 };
  const normalised = (name: keyof DroppedCounts) => {
    const set = new Set<string>();
    for (const entry of input[name]) {
      const domain = normaliseDomain(entry.startsWith("*.") ? entry.slice(2) : entry);
      if (domain === null) dropped[name]++;
      else set.add(domain);
    }
    return set;
  };
  const rule = input.rule ?? DEFAULT_EVIDENCE_RULE;
  const compiled =
    input.compiled ??
    compileEvidence(input.sources ?? anonymousSources(normalised("disposable"), normalised("disposableWildcard")));
  const heldBack = new Set(input.heldBack ?? []);
  const disposable = compiled.exact.served(rule, heldBack);
  const allow = new Set([...normalised("allow"), ...RELAY_DOMAINS]);
  const supplement = normalised("freeSupplement");
  const candidates = new Set([...normalised("free"), ...supplement]);
  const disposableLists = {
    disposable,
    disposableSuffixes: new Set(compiled.suffixes.filter((name) => disposable.has(name))),
    // A few hundred names, probed for the domain and each parent: a Set keeps each string's hash.
    disposableWildcard: new Set(compiled.wildcard.served(rule, heldBack)),
    families: families(
      compiled.families,
      rule,
      (domain) =>
        candidates.has(domain) ||
        heldBack.has(domain) ||
        isAllowlisted(allow, domain) ||
        INSTITUTIONAL_SUFFIX.test(publicSuffixOfNormalised(domain)),
      input.familyMembers,
    ),
    allow,
    overrides: new Map<string, OverrideLine>(),
  };
  const free = new Set<string>();
  const report = {
    candidates: candidates.size,
    kept: 0,
    disposable: 0,
    throwawayName: 0,
    suffixOrReserved: 0,
    institutional: 0,
  };
  for (const domain of candidates) {
    const suffix = publicSuffixOfNormalised(domain);
    if (suffix === domain || isReserved(domain)) report.suffixOrReserved++;
    else if (INSTITUTIONAL_SUFFIX.test(suffix)) report.institutional++;
    else if (isDisposable(disposableLists, domain)) report.disposable++;
    else if (!supplement.has(domain) && !isAllowlisted(disposableLists.allow, domain) && looksThrowaway(domain, suffix))
      report.throwawayName++;
    else free.add(domain);
  }
  report.kept = free.size;
  const knownGood = knownGoodMailDomain({ free, allow });
  const lists = {
    ...disposableLists,
    free: new PackedDomainSet(free),
    evidence: compiled.evidence,
    listed: { exact: compiled.exact, wildcard: compiled.wildcard },
    rule,
    belowEvidence: compiled.exact.belowEvidence(rule) + compiled.wildcard.belowEvidence(rule),
    heldBack,
    freeSupplement: supplement,
    allowReasons: input.allowReasons ?? new Map(),
    mailServers: mailInfrastructure(input.mailObservations ?? [], (host) => mailServerExemption(host, knownGood)),
  };
  return { lists, dropped, free: report };
}

/** Lists given without their sources (tests, a version made before lists were kept apart): one list of each kind. */
function anonymousSources(disposable: ReadonlySet<string>, wildcard: ReadonlySet<string>): SourceInput[] {
  const source = (name: string, names: ReadonlySet<string>, isWildcard: boolean): SourceInput => ({
    name,
    verifies: false,
    includes: [],
    wildcard: isWildcard,
    entries: new Map([...names].map((n) => [n, 0])),
    checkedAt: null,
  });
  return [source("disposable-domains", disposable, false), source("disposable-wildcards", wildcard, true)];
}

/** The domain or one of its parents is on the allowlist. */
function isAllowlisted(allow: DomainSet, domain: string): boolean {
  return nearest(domain, (name) => (allow.has(name) ? true : undefined)) === true;
}

/** One domain per line; `#` starts a comment. */
export function parseDomainListText(text: string): string[] {
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    const hash = line.indexOf("#");
    const entry = (hash === -1 ? line : line.slice(0, hash)).trim();
    if (entry !== "") entries.push(entry);
  }
  return entries;
}
