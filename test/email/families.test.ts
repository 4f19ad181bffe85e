import { describe, expect, test } from "bun:test";
import { classifyDomain } from "../../src/email/classify.ts";
import type { SourceInput } from "../../src/email/disposable-evidence.ts";
import { buildDomainLists } from "../../src/email/domain-lists.ts";
import { explainEmail } from "../../src/email/explanation.ts";
import { FAMILY_MEMBERS, families, familyCandidates } from "../../src/email/families.ts";
import { compileEvidence } from "../../src/email/compiled-evidence.ts";

const source = (name: string, names: string[], extra: Partial<SourceInput> = {}): SourceInput => ({
  name,
  verifies: false,
  includes: [],
  wildcard: false,
  entries: new Map(names.map((n) => [n, 0])),
  checkedAt: null,
  ...extra,
});
const subdomains = (domain: string, n: number) => Array.from({ length: n }, (_, i) => `box${i}.${domain}`);

const lists = (inputs: SourceInput[], free: string[] = [], allow: string[] = [], heldBack: string[] = []) =>
  buildDomainLists({
    disposable: [],
    disposableWildcard: [],
    free,
    freeSupplement: [],
    allow,
    sources: inputs,
    heldBack,
  }).lists;

describe("families: several listed names under one registrable domain", () => {
  const castle = source("castle", [...subdomains("burner-family.site", FAMILY_MEMBERS), "lone.other-family.site"], {
    verifies: true,
  });

  test(`${FAMILY_MEMBERS} listed subdomains make the registrable domain and all its names disposable`, () => {
    const l = lists([castle]);
    expect(l.families.get("burner-family.site")).toBe(FAMILY_MEMBERS);
    for (const domain of ["burner-family.site", "new-box.burner-family.site", "a.b.burner-family.site"])
      expect(classifyDomain(l, domain).isDisposable).toBe(true);
    expect(classifyDomain(l, "burner-family.site.elsewhere.org").isDisposable).toBe(false);
  });

  test("fewer do not", () => {
    const l = lists([source("castle", subdomains("small-family.site", FAMILY_MEMBERS - 1), { verifies: true })]);
    expect(l.families.size).toBe(0);
    expect(classifyDomain(l, "new.small-family.site").isDisposable).toBe(false);
  });

  test("only names whose listing meets the evidence rule count", () => {
    const copier = source("copier", subdomains("copied-family.site", FAMILY_MEMBERS), { includes: ["primary"] });
    const l = lists([source("primary", []), copier]);
    expect(l.families.size).toBe(0);
    const any = buildDomainLists({
      disposable: [],
      disposableWildcard: [],
      free: [],
      freeSupplement: [],
      allow: [],
      sources: [source("primary", []), copier],
      rule: "any",
    }).lists;
    expect(any.families.get("copied-family.site")).toBe(FAMILY_MEMBERS);
  });

  test("the private section of the public-suffix list is honoured: customers of a shared host are not one family", () => {
    const hosted = source("castle", ["one.github.io", "two.github.io", "three.github.io", "four.github.io"], {
      verifies: true,
    });
    const l = lists([hosted]);
    expect(l.families.size).toBe(0);
    expect(classifyDomain(l, "someone-else.github.io").isDisposable).toBe(false);
  });

  test.each([
    ["a free provider", { free: ["burner-family.site"] }],
    ["an allowlisted name", { allow: ["burner-family.site"] }],
    ["a held-back name", { heldBack: ["burner-family.site"] }],
  ])(
    "never %s",
    (_, { free = [], allow = [], heldBack = [] }: { free?: string[]; allow?: string[]; heldBack?: string[] }) => {
      const l = lists([castle], free, allow, heldBack);
      expect(l.families.has("burner-family.site")).toBe(false);
      expect(classifyDomain(l, "new-box.burner-family.site").isDisposable).toBe(false);
    },
  );

  test("never a relay, an academic or a government domain", () => {
    const l = lists([
      source(
        "castle",
        [...subdomains("mozmail.com", 4), ...subdomains("uni-example.ac.uk", 4), ...subdomains("agency.gov.au", 4)],
        { verifies: true },
      ),
    ]);
    expect([...l.families.keys()]).toEqual([]);
  });

  test("explain names the family and its size", () => {
    const l = lists([castle]);
    const reasons = explainEmail(l, "u@new-box.burner-family.site", "new-box.burner-family.site", { sources: [] });
    expect(reasons.rule).toBe("family");
    expect(reasons.matched).toBe("burner-family.site");
    expect(reasons.family).toEqual({ domain: "burner-family.site", members: FAMILY_MEMBERS });
    expect(reasons.confidence).toBe("medium");
  });

  test("candidates are compiled once per version, by strength, and decide any rule and threshold", () => {
    const compiled = compileEvidence([castle]);
    expect(compiled.families).toEqual(familyCandidates(compiled.exact));
    expect(compiled.families.map((c) => c.domain)).toEqual(["burner-family.site"]);
    expect(families(compiled.families, "strict", () => false, FAMILY_MEMBERS + 1).size).toBe(0);
    expect(families(compiled.families, "strict", () => false).get("burner-family.site")).toBe(FAMILY_MEMBERS);
  });
});
