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
    const meets = Uint8Array.from(LISTED_STRENGTHS, (s) => (meetsRule(rule, s) ? 1 : 0));
    const served = new ServedNames(this, meets, heldBack);
    // Every check probes this set, some several times: a view's extra read is only paid where it filters.
    return served.size === this.names.size ? this.names : served;
  }

  /** How many names fall short of `rule`. */
  belowEvidence(rule: EvidenceRule): number {
    const meets = LISTED_STRENGTHS.map((s) => meetsRule(rule, s));
    let below = 0;
    for (const code of this.strengths) if (!meets[code]) below++;
    return below;
  }
}

/** The names of a `ListedNames` that an evidence rule serves, as a set. */
export class ServedNames implements DomainSet {
  readonly size: number;

  constructor(
    private readonly listed: ListedNames,
    /** 1 at each strength code the rule serves. */
    private readonly meets: Uint8Array,
    private readonly heldBack: DomainSet,
  ) {
    let size = 0;
    for (const code of listed.strengths) size += meets[code];
    for (const name of heldBack) if (this.isServed(listed.names.indexOf(name))) size--;
    this.size = size;
  }

  has(domain: string): boolean {
    return this.isServed(this.listed.names.indexOf(domain)) && (this.heldBack.size === 0 || !this.heldBack.has(domain));
  }

  *[Symbol.iterator](): Generator<string> {
    let entry = 0;
    for (const name of this.listed.names) {
      if (this.isServed(entry++) && !this.heldBack.has(name)) yield name;
    }
  }

  private isServed(entry: number): boolean {
    return entry !== -1 && this.meets[this.listed.strengths[entry]] === 1;
  }
}
