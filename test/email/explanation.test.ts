import { describe, expect, test } from "bun:test";
import { isDisposable } from "../../src/email/classify.ts";
import type { SourceInput } from "../../src/email/disposable-evidence.ts";
import { type DomainLists, buildDomainLists } from "../../src/email/domain-lists.ts";
import type { EvidenceRule } from "../../src/email/evidence-rule.ts";
import { explainEmail } from "../../src/email/explanation.ts";
import { type OverrideLine, activeOverrides } from "../../src/email/overrides.ts";

const DAY = 86_400;
const source = (name: string, entries: Record<string, number>, extra: Partial<SourceInput> = {}): SourceInput => ({
  name,
  verifies: false,
  includes: [],
  wildcard: false,
  entries: new Map(Object.entries(entries)),
  checkedAt: "2026-11-20T00:00:00.000Z",
  ...extra,
});
const SOURCES: SourceInput[] = [
  source("verifying-list", { "verified-throwaway.com": 100 * DAY, "both.com": 200 * DAY }, { verifies: true }),
  source("primary-list", { "primary-only.com": 300 * DAY, "both.com": 0, "copied-too.com": 0, "edu.pl": 0 }),
  source(
    "copying-list",
    { "copier-only.com": 400 * DAY, "copied-too.com": 0, "pp.ua": 0, "held.example-disputed.com": 0 },
    { includes: ["primary-list"] },
  ),
  source("wildcard-list", { "alias-wild.com": 0 }, { wildcard: true }),
];

function lists(rule: EvidenceRule = "corroborated", overrides: OverrideLine[] = []): DomainLists {
  const { lists } = buildDomainLists({
    disposable: [],
    disposableWildcard: [],
    free: ["freemail.com", "primary-only.com"],
    freeSupplement: ["curated-free.com"],
    allow: ["allowed-corp.com"],
    sources: SOURCES,
    rule,
    heldBack: ["held.example-disputed.com"],
    allowReasons: new Map([["allowed-corp.com", "a company's staff domain, checked by hand"]]),
  });
  return { ...lists, overrides: activeOverrides(overrides, Date.UTC(2026, 10, 25)) };
}
const explain = (l: DomainLists, address: string) =>
  explainEmail(l, address, address.slice(address.lastIndexOf("@") + 1), { sources: ["free-email-providers"] });

describe("the deciding rule", () => {
  const l = lists();
  test.each([
    ["a@verified-throwaway.com", "listed", "verified-throwaway.com", "verified", "high", true],
    ["a@both.com", "listed", "both.com", "verified", "high", true],
    ["a@primary-only.com", "listed", "primary-only.com", "single", "medium", true],
    ["a@copied-too.com", "listed", "copied-too.com", "single", "medium", true],
    ["a@mx.verified-throwaway.com", "parent-listed", "verified-throwaway.com", "verified", "high", true],
    ["a@x.alias-wild.com", "wildcard", "alias-wild.com", "single", "medium", true],
    ["a@alias-wild.com", "wildcard", "alias-wild.com", "single", "medium", true],
    ["a@example.com", "reserved-name", "example.com", "none", "high", true],
    ["a@copier-only.com", "below-evidence", "copier-only.com", "copied", "low", false],
    ["a@held.example-disputed.com", "disputed", "held.example-disputed.com", "copied", "low", false],
    ["a@allowed-corp.com", "allowlisted", "allowed-corp.com", "none", "high", false],
    ["a@sub.allowed-corp.com", "allowlisted", "allowed-corp.com", "none", "high", false],
    ["a@duck.com", "relay", "duck.com", "none", "high", false],
    ["a@nobody-lists-this.com", "not-listed", null, "none", "medium", false],
  ] as const)("%s: %s (%s), evidence %s, confidence %s", (address, rule, matched, evidence, confidence, disposable) => {
    const reasons = explain(l, address);
    expect(reasons).toMatchObject({ rule, matched, evidence, confidence, evidence_rule: "corroborated" });
    expect(isDisposable(l, address.split("@")[1])).toBe(disposable);
  });

  test("a listed public suffix flags itself, never its subdomains", () => {
    const reasons = explain(l, "a@uni.edu.pl");
    expect(reasons.rule).toBe("not-listed");
    expect(reasons.sources).toEqual([]);
    expect(explain(l, "a@edu.pl").rule).toBe("listed");
  });

  test("each listing names its list, entry, match, first and last time seen, verification and lineage", () => {
    const reasons = explain(l, "a@mx.copied-too.com");
    expect(reasons.rule).toBe("parent-listed");
    expect(reasons.sources).toEqual([
      {
        source: "primary-list",
        entry: "copied-too.com",
        match: "parent",
        first_seen: null,
        last_seen: "2026-11-20T00:00:00.000Z",
        remembered: false,
        verifies: false,
        copies: [],
      },
      {
        source: "copying-list",
        entry: "copied-too.com",
        match: "parent",
        first_seen: null,
        last_seen: "2026-11-20T00:00:00.000Z",
        remembered: false,
        verifies: false,
        copies: ["primary-list"],
      },
    ]);
    expect(explain(l, "a@copier-only.com").sources[0].first_seen).toBe(new Date(400 * DAY * 1000).toISOString());
  });

  test("the allowlist line's reason, the list that names a free provider, the relay service", () => {
    expect(explain(l, "a@allowed-corp.com").allowlist).toEqual({
      entry: "allowed-corp.com",
      reason: "a company's staff domain, checked by hand",
    });
    expect(explain(l, "a@freemail.com").free).toEqual({ list: "free-email-providers" });
    expect(explain(l, "a@curated-free.com").free).toEqual({ list: "operator-free-providers" });
    expect(explain(l, "a@primary-only.com").free).toBeUndefined();
    expect(explain(l, "a@alias.anonaddy.com")).toMatchObject({ rule: "relay", relay: { service: "addy.io" } });
  });

  test("a stricter rule demotes a single list's listing; a looser one serves a copying list's", () => {
    expect(explain(lists("strict"), "a@primary-only.com")).toMatchObject({
      rule: "below-evidence",
      evidence_rule: "strict",
      confidence: "low",
    });
    expect(explain(lists("any"), "a@copier-only.com")).toMatchObject({
      rule: "listed",
      evidence_rule: "any",
      evidence: "copied",
    });
    expect(isDisposable(lists("any"), "copier-only.com")).toBe(true);
  });
});

describe("override lines", () => {
  const line = (domain: string, action: "allow" | "deny", until: string | null = null): OverrideLine => ({
    domain,
    action,
    reason: `${action} ${domain}`,
    author: "ops",
    created: "2026-11-01T00:00:00.000Z",
    until,
  });
  const l = lists("corroborated", [
    line("both.com", "allow"),
    line("copier-only.com", "deny"),
    line("sub.allowed-corp.com", "deny"),
    line("primary-only.com", "allow", "2026-11-01T00:00:00.000Z"),
  ]);

  test.each([
    ["a@both.com", "allowlisted", false],
    ["a@mx.both.com", "allowlisted", false],
    ["a@copier-only.com", "denylisted", true],
    ["a@sub.allowed-corp.com", "denylisted", true],
    ["a@allowed-corp.com", "allowlisted", false],
    ["a@primary-only.com", "listed", true],
  ] as const)(
    "%s: %s, the most specific line over every list; an expired line no longer applies",
    (address, rule, disposable) => {
      const reasons = explain(l, address);
      expect(reasons.rule).toBe(rule);
      expect(isDisposable(l, address.split("@")[1])).toBe(disposable);
    },
  );

  test("explain shows the line with its reason, author and expiry", () => {
    expect(explain(l, "a@copier-only.com").override).toEqual({
      domain: "copier-only.com",
      action: "deny",
      reason: "deny copier-only.com",
      author: "ops",
      created: "2026-11-01T00:00:00.000Z",
      until: null,
    });
    expect(explain(l, "a@allowed-corp.com").override).toBeUndefined();
  });
});

describe("explain and the verdict agree", () => {
  test("on every listed name, its subdomains and parents, under every rule and with overrides", () => {
    const names = [...new Set(SOURCES.flatMap((s) => [...s.entries.keys()]))].flatMap((n) => [
      n,
      `mx.${n}`,
      `a.b.${n}`,
    ]);
    names.push("allowed-corp.com", "x.allowed-corp.com", "duck.com", "example.org", "foo.test", "gmail.com");
    for (const rule of ["any", "corroborated", "strict"] as const) {
      const l = lists(rule, [
        { domain: "both.com", action: "allow", reason: "r", author: "a", created: "", until: null },
      ]);
      for (const name of names) {
        const rule = explain(l, `a@${name}`).rule;
        const saysDisposable = ["denylisted", "listed", "wildcard", "parent-listed", "reserved-name"].includes(rule);
        expect(`${name}: ${saysDisposable}`).toBe(`${name}: ${isDisposable(l, name)}`);
      }
    }
  });
});
