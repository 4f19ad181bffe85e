import { describe, expect, test } from "bun:test";
import { compileEvidence } from "../../src/email/compiled-evidence.ts";
import type { SourceInput } from "../../src/email/disposable-evidence.ts";

const list = (name: string, names: string[], extra: Partial<SourceInput> = {}): SourceInput => ({
  name,
  verifies: false,
  includes: [],
  wildcard: false,
  entries: new Map(names.map((n) => [n, 0])),
  checkedAt: null,
  ...extra,
});

// "aggregator" copies "primary": a name only it lists is a copied listing, served under `any` alone.
const { exact } = compileEvidence([
  list("primary", ["one.com", "both.com"]),
  list("aggregator", ["both.com", "copied.com", "held.com"], { includes: ["primary"] }),
  list("verifier", ["checked.com"], { verifies: true }),
]);

describe("listed names served under a rule", () => {
  test("each name once, in the lists' order", () => {
    expect([...exact.names]).toEqual(["one.com", "both.com", "copied.com", "held.com", "checked.com"]);
  });

  test("a rule serves the names whose listing meets it; the others count as below it", () => {
    const none = new Set<string>();
    expect([...exact.served("any", none)]).toEqual(["one.com", "both.com", "copied.com", "held.com", "checked.com"]);
    expect([...exact.served("corroborated", none)]).toEqual(["one.com", "both.com", "checked.com"]);
    expect([...exact.served("strict", none)]).toEqual(["checked.com"]);
    expect(exact.belowEvidence("any")).toBe(0);
    expect(exact.belowEvidence("corroborated")).toBe(2);
    expect(exact.belowEvidence("strict")).toBe(4);
  });

  test("held-back names are neither had, counted nor iterated, whether the rule served them or not", () => {
    const served = exact.served("any", new Set(["held.com", "unlisted.com"]));
    expect(served.has("held.com")).toBe(false);
    expect(served.has("copied.com")).toBe(true);
    expect(served.size).toBe(4);
    expect([...served]).toEqual(["one.com", "both.com", "copied.com", "checked.com"]);
    const corroborated = exact.served("corroborated", new Set(["held.com", "both.com"]));
    expect(corroborated.size).toBe(2);
    expect([...corroborated]).toEqual(["one.com", "checked.com"]);
  });

  test("where the rule serves every name and none is held back, the set is the packed names themselves", () => {
    expect(exact.served("any", new Set(["unlisted.com"]))).toBe(exact.names);
    expect(exact.served("any", new Set(["held.com"]))).not.toBe(exact.names);
    expect(exact.served("corroborated", new Set())).not.toBe(exact.names);
  });

  test("a name no list names is not had", () => {
    expect(exact.served("any", new Set()).has("other.com")).toBe(false);
    expect(exact.served("any", new Set()).has("")).toBe(false);
  });
});
