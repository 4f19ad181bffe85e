import { describe, expect, test } from "bun:test";
import { buildDomainLists } from "../../src/email/domain-lists.ts";
import type { SourceInput } from "../../src/email/disposable-evidence.ts";
import {
  EVIDENCE_RULES,
  type EvidenceRule,
  type Witness,
  evidenceStrength,
  independentWitnesses,
  meetsRule,
} from "../../src/email/evidence-rule.ts";
import { isDisposable } from "../../src/email/classify.ts";

const witness = (name: string, copies: string[] = [], verifies = false): Witness => ({
  name,
  verifies,
  copies: new Set(copies),
});
const primary = witness("primary");
const other = witness("other");
const verifying = witness("verifying", [], true);
/** Copies `primary`, as burner-email-providers copies mailchecker. */
const copier = witness("copier", ["primary"]);
/** Copies `copier` and so, through it, `primary`. */
const aggregator = witness("aggregator", ["copier", "primary"]);

describe("independent witnesses", () => {
  test.each([
    [[primary], ["primary"]],
    [
      [primary, other],
      ["primary", "other"],
    ],
    [[primary, copier], ["primary"]],
    [[copier], ["copier"]],
    [[copier, aggregator, primary], ["primary"]],
    [
      [copier, other],
      ["copier", "other"],
    ],
  ] as const)("%#: a list that copies another one listing the name is no second witness", (listing, expected) => {
    expect(independentWitnesses(listing).map((w) => w.name)).toEqual([...expected]);
  });
});

describe("strength and rules", () => {
  const cases: [Witness[], string, Record<EvidenceRule, boolean>][] = [
    [[], "none", { any: false, corroborated: false, strict: false }],
    [[verifying], "verified", { any: true, corroborated: true, strict: true }],
    [[primary, other], "independent", { any: true, corroborated: true, strict: true }],
    [[primary], "single", { any: true, corroborated: true, strict: false }],
    [[primary, copier], "single", { any: true, corroborated: true, strict: false }],
    [[copier], "copied", { any: true, corroborated: false, strict: false }],
    [[copier, aggregator], "copied", { any: true, corroborated: false, strict: false }],
    [[copier, other], "independent", { any: true, corroborated: true, strict: true }],
  ];
  test.each(cases)("%#: %j is %s", (listing, strength, rules) => {
    expect(evidenceStrength(listing)).toBe(strength as ReturnType<typeof evidenceStrength>);
    for (const rule of EVIDENCE_RULES) expect(meetsRule(rule, evidenceStrength(listing))).toBe(rules[rule]);
  });
});

/** A small random world of lists with lineage, from a seed. */
function randomLists(seed: number): SourceInput[] {
  let state = seed;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const names = Array.from({ length: 400 }, (_, i) => `d${i}.example-${i % 7}.com`);
  const pick = () => new Map(names.filter(() => random() < 0.3).map((n) => [n, 0]));
  const source = (name: string, includes: string[], verifies: boolean): SourceInput => ({
    name,
    verifies,
    includes,
    wildcard: false,
    entries: pick(),
    checkedAt: null,
  });
  return [
    source("a", [], false),
    source("b", ["a"], false),
    source("c", ["b"], false),
    source("v", [], true),
    source("d", [], false),
  ];
}

describe("recall on names a verifying list or two independent lists name", () => {
  test.each([1, 2, 3, 4, 5])("seed %i: served under every rule, unless allowlisted", (seed) => {
    const sources = randomLists(seed);
    const allow = ["d7.example-0.com", "example-3.com"];
    for (const rule of EVIDENCE_RULES) {
      const { lists } = buildDomainLists({
        disposable: [],
        disposableWildcard: [],
        free: [],
        freeSupplement: [],
        allow,
        sources,
        rule,
      });
      let strong = 0;
      for (const name of new Set(sources.flatMap((s) => [...s.entries.keys()]))) {
        const listing = sources
          .filter((s) => s.entries.has(name))
          .map((s) => witness(s.name, s.name === "b" ? ["a"] : s.name === "c" ? ["b", "a"] : [], s.verifies));
        const strength = evidenceStrength(listing);
        const allowlisted = allow.some((a) => name === a || name.endsWith(`.${a}`));
        if ((strength === "verified" || strength === "independent") && !allowlisted) {
          strong++;
          expect(isDisposable(lists, name)).toBe(true);
        }
        if (allowlisted) expect(isDisposable(lists, name)).toBe(false);
        // Unless enough better-listed names share its registrable domain (a family, test/email/families.test.ts).
        const inFamily = [...lists.families.keys()].some((f) => name === f || name.endsWith(`.${f}`));
        if (strength === "copied" && rule !== "any" && !inFamily) expect(isDisposable(lists, name)).toBe(false);
      }
      expect(strong).toBeGreaterThan(50);
    }
  });
});
