import { type EvidenceRule, type EvidenceStrength, meetsRule } from "./evidence-rule.ts";
import { type DomainSet, PackedDomainSet, type PackedDomainSetParts } from "./packed-domain-set.ts";

/** The strengths a listed name can have, by the code `ListedNames.strengths` stores. */
export const LISTED_STRENGTHS: readonly EvidenceStrength[] = ["verified", "independent", "single", "copied"];

/** A `ListedNames` as arrays, as handed between threads and written into a version. */
export interface ListedNamesParts {
  readonly names: PackedDomainSetParts;
  readonly strengths: Uint8Array;
}

/**
 * Every name one kind of list (exact or wildcard) names, once, in the lists' order, with
 * how strong its listing is (a `LISTED_STRENGTHS` code): what any evidence rule is decided
 * from, so that a load under a rule only reads it.
 */
export class ListedNames {
  constructor(
    readonly names: PackedDomainSet,
    readonly strengths: Uint8Array,
  ) {
    if (strengths.length !== names.size) throw new Error("a strength for every listed name is needed");
  }

  static fromParts(parts: ListedNamesParts): ListedNames {
    return new ListedNames(PackedDomainSet.fromParts(parts.names), parts.strengths);
  }

  get parts(): ListedNamesParts {
    return { names: this.names.parts, strengths: this.strengths };
  }

  /** The names `rule` serves, without those `heldBack`: the packed names themselves when that is all of them. */
  served(rule: EvidenceRule, heldBack: DomainSet): DomainSet {
    const meets = LISTED_STRENGTHS.map((s) => meetsRule(rule, s));
    let served: Uint8Array | null = null;
    let size = this.names.size;
    // `includes` scans natively: under the usual rules no name falls short, and the loop over every name (it runs
    // before the code is compiled, milliseconds of a start) is left out.
    if (meets.some((meet, code) => !meet && this.strengths.includes(code))) {
      served = new Uint8Array(this.strengths.length);
      size = 0;
      for (let entry = 0; entry < served.length; entry++) {
        if (meets[this.strengths[entry]]) {
          served[entry] = 1;
          size++;
        }
      }
    }
    for (const name of heldBack) {
      const entry = this.names.indexOf(name);
      if (entry !== -1 && served?.[entry] !== 0) {
        served ??= new Uint8Array(this.strengths.length).fill(1);
        served[entry] = 0;
        size--;
      }
    }
    // Every check probes this set, some several times: a view's extra read is only paid where it filters.
    return served === null ? this.names : new ServedNames(this.names, served, size);
  }

  /** How many names fall short of `rule`. */
  belowEvidence(rule: EvidenceRule): number {
    const meets = LISTED_STRENGTHS.map((s) => meetsRule(rule, s));
    let below = 0;
    for (const code of this.strengths) if (!meets[code]) below++;
    return below;
  }
}

/** Some of a packed set's names, as a set: those whose entry is marked served. */
class ServedNames implements DomainSet {
  constructor(
    private readonly names: PackedDomainSet,
    /** 1 at each entry served. */
    private readonly served: Uint8Array,
    readonly size: number,
  ) {}

  has(domain: string): boolean {
    const entry = this.names.indexOf(domain);
    return entry !== -1 && this.served[entry] === 1;
  }

  *[Symbol.iterator](): Generator<string> {
    let entry = 0;
    for (const name of this.names) if (this.served[entry++] === 1) yield name;
  }
}
