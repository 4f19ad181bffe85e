import { type OverrideLine, overrideFor } from "./overrides.ts";
import type { DomainSet } from "./packed-domain-set.ts";
import { isReserved } from "./reserved-names.ts";

export interface DomainVerdict {
  readonly isDisposable: boolean;
  readonly isFree: boolean;
}

const DISPOSABLE: DomainVerdict = Object.freeze({ isDisposable: true, isFree: false });
const FREE: DomainVerdict = Object.freeze({ isDisposable: false, isFree: true });
const NEITHER: DomainVerdict = Object.freeze({ isDisposable: false, isFree: false });

/** `domain` is normalised (lower-case ASCII). Disposable wins over free. */
export function classifyDomain(lists: DisposableLists & { readonly free: DomainSet }, domain: string): DomainVerdict {
  if (isDisposable(lists, domain)) return DISPOSABLE;
  return lists.free.has(domain) ? FREE : NEITHER;
}

/** What decides whether a domain is disposable: the part of `DomainLists` (domain-lists.ts) that isDisposable reads. */
export interface DisposableLists {
  readonly disposable: DomainSet;
  readonly disposableSuffixes: DomainSet;
  readonly disposableWildcard: DomainSet;
  readonly families: ReadonlyMap<string, number>;
  readonly allow: DomainSet;
  readonly overrides: ReadonlyMap<string, OverrideLine>;
}

/**
 * Listed exactly; or it or an ancestor in the wildcard list; or an ancestor listed
 * exactly that is not a public suffix; or it or an ancestor a family (a registrable domain
 * under which enough listed names lie); or a reserved name, where an address is a
 * placeholder that can never receive mail. Ancestors stop before the bare TLD. The
 * allowlist beats all of them, and covers subdomains of what it lists; an operator's
 * override line for the domain or its nearest parent beats everything.
 */
export function isDisposable(lists: DisposableLists, domain: string): boolean {
  if (lists.overrides.size !== 0) {
    const line = overrideFor(lists.overrides, domain);
    if (line !== undefined) return line.action === "deny";
  }
  const anyFamily = lists.families.size !== 0;
  let listed =
    lists.disposable.has(domain) ||
    lists.disposableWildcard.has(domain) ||
    (anyFamily && lists.families.has(domain)) ||
    isReserved(domain);
  if (lists.allow.has(domain)) return false;
  for (let dot = domain.indexOf("."); dot !== -1; ) {
    const next = domain.indexOf(".", dot + 1);
    if (next === -1) break;
    const ancestor = domain.slice(dot + 1);
    if (lists.allow.has(ancestor)) return false;
    if (!listed)
      listed =
        lists.disposableWildcard.has(ancestor) ||
        (lists.disposable.has(ancestor) && !lists.disposableSuffixes.has(ancestor)) ||
        (anyFamily && lists.families.has(ancestor));
    dot = next;
  }
  return listed;
}
