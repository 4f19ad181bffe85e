import { type Witness, evidenceStrength } from "./evidence-rule.ts";
import { LISTED_STRENGTHS, ListedNames } from "./listed-names.ts";
import { PackedDomainSet } from "./packed-domain-set.ts";

/** One disposable-domain list as a version holds it: its entries and when this appliance's updates first saw each. */
export interface ListedSource extends Witness {
  /** Lists `*.name`-style entries: a listing covers the name and every name under it. */
  readonly wildcard: boolean;
  readonly entries: PackedDomainSet;
  /** Seconds since the epoch, by entry position; 0 where unknown. */
  readonly firstSeen: Uint32Array;
  /**
   * For a name a rolling list no longer carries but still remembers: when it last did (seconds), by entry position; 0
   * for a name it carries.
   */
  readonly lastSeen: Uint32Array;
  /** When an update last confirmed the list, or null. */
  readonly checkedAt: string | null;
}

export interface SourceInput {
  readonly name: string;
  readonly verifies: boolean;
  readonly includes: readonly string[];
  readonly wildcard: boolean;
  /** Normalised domains with the second they were first seen (0: unknown). */
  readonly entries: ReadonlyMap<string, number>;
  /** The names a rolling list no longer carries, remembered, with the second it last did. */
  readonly lastSeen?: ReadonlyMap<string, number>;
  readonly checkedAt: string | null;
}

/** One list's listing of a name. */
export interface Listing {
  readonly source: ListedSource;
  readonly firstSeen: number;
  /** When a rolling list last carried a name it no longer does (seconds); 0 while it carries it. */
  readonly lastSeen: number;
}

/**
 * Every disposable list's entries, kept apart so that a verdict can count independent
 * witnesses and an explanation can name them.
 */
export class DisposableEvidence {
  constructor(readonly sources: readonly ListedSource[]) {}

  static build(inputs: readonly SourceInput[]): DisposableEvidence {
    const byName = new Map(inputs.map((s) => [s.name, s]));
    return new DisposableEvidence(
      inputs.map((input) => {
        const entries = new PackedDomainSet(new Set(input.entries.keys()));
        return {
          name: input.name,
          verifies: input.verifies,
          copies: copiedBy(input.name, byName),
          wildcard: input.wildcard,
          entries,
          firstSeen: Uint32Array.from(input.entries.values()),
          lastSeen: Uint32Array.from(input.entries.keys(), (name) => input.lastSeen?.get(name) ?? 0),
          checkedAt: input.checkedAt,
        };
      }),
    );
  }

  /** The lists that name `domain` exactly, of one kind (exact or wildcard lists). */
  listings(domain: string, wildcard: boolean): Listing[] {
    const found: Listing[] = [];
    for (const source of this.sources) {
      if (source.wildcard !== wildcard) continue;
      const at = source.entries.indexOf(domain);
      if (at !== -1) found.push({ source, firstSeen: source.firstSeen[at], lastSeen: source.lastSeen[at] });
    }
    return found;
  }

  /** Every name the lists of one kind name, with the strength of its listing: what each evidence rule is decided from. */
  listedNames(wildcard: boolean): ListedNames {
    const kind = this.sources.filter((s) => s.wildcard === wildcard);
    const names = new Set<string>();
    const strengths: number[] = [];
    const listing: ListedSource[] = [];
    kind.forEach((source, i) => {
      // What an earlier list names was decided with it; a later one only adds its own names.
      const earlier = kind.slice(0, i);
      for (const name of source.entries) {
        if (earlier.some((e) => e.entries.has(name))) continue;
        listing.length = 0;
        for (const s of kind) if (s === source || s.entries.has(name)) listing.push(s);
        names.add(name);
        strengths.push(LISTED_STRENGTHS.indexOf(evidenceStrength(listing)));
      }
    });
    return new ListedNames(new PackedDomainSet(names), Uint8Array.from(strengths));
  }
}

/** The lists `name` copies, following `includes` through (a cycle is refused when sources.json is read). */
function copiedBy(name: string, byName: ReadonlyMap<string, { includes: readonly string[] }>): Set<string> {
  const copies = new Set<string>();
  const walk = (from: string) => {
    for (const next of byName.get(from)?.includes ?? []) {
      if (copies.has(next) || next === name) continue;
      copies.add(next);
      walk(next);
    }
  };
  walk(name);
  return copies;
}
