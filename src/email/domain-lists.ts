import { getDomainWithoutSuffix, getPublicSuffix } from "tldts";
import { normaliseDomain } from "./domain-name.ts";
import { type DomainSet, PackedDomainSet } from "./packed-domain-set.ts";

export interface DomainListInput {
  disposable: readonly string[];
  disposableWildcard: readonly string[];
  free: readonly string[];
  allow: readonly string[];
}

/** The two large lists, probed on every check, are packed; the three small ones are plain sets. */
export interface DomainLists {
  readonly disposable: DomainSet;
  /** Listed domains that are public suffixes: they flag themselves, never their subdomains. */
  readonly disposableSuffixes: DomainSet;
  readonly disposableWildcard: DomainSet;
  /** Free providers, without public suffixes and reserved names. */
  readonly free: DomainSet;
  readonly allow: DomainSet;
}

export type DroppedCounts = Record<keyof DomainListInput, number>;

const PSL = { allowPrivateDomains: true } as const;
const RESERVED_TLDS = new Set(["test", "example", "invalid", "localhost"]);

/** Normalises every entry like an address's domain; entries that are not domains are dropped and counted. */
export function buildDomainLists(input: DomainListInput): { lists: DomainLists; dropped: DroppedCounts } {
  const dropped: DroppedCounts = { disposable: 0, disposableWildcard: 0, free: 0, allow: 0 };
  const normalised = (name: keyof DomainListInput) => {
    const set = new Set<string>();
    for (const entry of input[name]) {
      const domain = normaliseDomain(entry.startsWith("*.") ? entry.slice(2) : entry);
      if (domain === null) dropped[name]++;
      else set.add(domain);
    }
    return set;
  };
  const disposable = normalised("disposable");
  const free = normalised("free");
  const lists: DomainLists = {
    disposable: new PackedDomainSet(disposable),
    disposableSuffixes: new Set([...disposable].filter(isPublicSuffix)),
    disposableWildcard: normalised("disposableWildcard"),
    free: new PackedDomainSet(new Set([...free].filter((d) => !isPublicSuffix(d) && !isReserved(d)))),
    allow: normalised("allow"),
  };
  return { lists, dropped };
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

export function isPublicSuffix(domain: string): boolean {
  return getPublicSuffix(domain, PSL) === domain;
}

/** RFC 2606 and RFC 6761 names, which no provider can hand out addresses in. */
export function isReserved(domain: string): boolean {
  const tld = domain.slice(domain.lastIndexOf(".") + 1);
  return RESERVED_TLDS.has(tld) || getDomainWithoutSuffix(domain, PSL) === "example";
}
