import { describe, expect, test } from "bun:test";
import { type AssessmentFacts, EmailSide, type IpSide } from "../../src/assess/assessment-facts.ts";
import { CompiledPolicy, DEFAULT_ONLY } from "../../src/assess/compiled-policy.ts";
import { DEFAULT_POLICY } from "../../src/assess/default-policy.ts";
import { parseRule, parseRuleSet } from "../../src/assess/parse-policy.ts";
import type { PolicyRule } from "../../src/assess/policy-rule.ts";
import { KIND } from "../../src/ip/verdict/network-kinds.ts";

const NOW = Date.UTC(2026, 10, 23, 12);

const EMAIL = new EmailSide("mail.example.com", true, false);
const IP: IpSide = {
  level: 3,
  risky: true,
  kinds: KIND.vpn | KIND.hosting,
  country: "DE",
  asn: 9009,
  reports: 4,
  reportedLocally: false,
  tor: false,
};
const facts = (over: Partial<AssessmentFacts> = {}): AssessmentFacts => ({
  event: "signup",
  email: EMAIL,
  ip: IP,
  reasons: [],
  score: 60,
  ...over,
});

const policyOf = (rules: unknown[], nowMs = NOW) =>
  CompiledPolicy.inForce(parseRuleSet({ rules }, { author: "t", nowMs: NOW }), nowMs);
const when = (condition: unknown, extra: Record<string, unknown> = {}) => ({
  id: "r",
  conditions: { all: [condition] },
  decision: "block",
  reason: "test",
  mode: "enforce",
  ...extra,
});
const matches = (condition: unknown, f: AssessmentFacts) => policyOf([when(condition)]).decide(f).rule !== null;

type Row = [field: string, op: string, value: unknown, matching: AssessmentFacts[], notMatching: AssessmentFacts[]];
const noEmail = facts({ email: null });
const noIp = facts({ ip: null });
const noEvent = facts({ event: null });
const ip = (over: Partial<IpSide>) => facts({ ip: { ...IP, ...over } });
const email = (over: { domain?: string; disposable?: boolean; free?: boolean; undeliverable?: boolean }) =>
  facts({
    email: new EmailSide(
      over.domain ?? EMAIL.domain,
      over.disposable ?? EMAIL.disposable,
      over.free ?? EMAIL.free,
      over.undeliverable,
    ),
  });

/** Each field and operator, with facts it matches and facts it does not: a value not given matches nothing. */
const COMPARISONS: Row[] = [
  ["event", "equals", "signup", [facts()], [facts({ event: "login" }), noEvent]],
  ["event", "in", ["login", "payment"], [facts({ event: "payment" })], [facts(), noEvent]],
  ["event", "not_in", ["login"], [facts()], [facts({ event: "login" }), noEvent]],
  ["score", "at_least", 60, [facts(), facts({ score: 100 })], [facts({ score: 59 })]],
  ["score", "at_most", 10, [facts({ score: 0 }), facts({ score: 10 })], [facts()]],
  ["score", "in", [0, 60], [facts()], [facts({ score: 1 })]],
  ["email.given", "is", true, [facts()], [noEmail]],
  ["email.given", "is", false, [noEmail], [facts()]],
  ["email.disposable", "is", true, [facts()], [email({ disposable: false }), noEmail]],
  ["email.disposable", "is", false, [email({ disposable: false })], [facts(), noEmail]],
  ["email.free", "is", true, [email({ free: true })], [facts(), noEmail]],
  ["email.undeliverable", "is", true, [email({ undeliverable: true })], [facts(), noEmail]],
  ["email.undeliverable", "is", false, [facts()], [email({ undeliverable: true }), noEmail]],
  ["email.domain", "equals", "mail.example.com", [facts()], [email({ domain: "example.com" }), noEmail]],
  [
    "email.domain",
    "in",
    ["example.com"],
    [facts(), email({ domain: "example.com" })],
    [email({ domain: "notexample.com" }), email({ domain: "example.com.au" }), noEmail],
  ],
  ["email.domain", "not_in", ["example.com"], [email({ domain: "example.org" })], [facts(), noEmail]],
  [
    "email.domain",
    "in",
    ["co.uk", "shop.test"],
    [email({ domain: "a.b.co.uk" }), email({ domain: "x.shop.test" })],
    [email({ domain: "co.uk.example" }), email({ domain: "shop.test.org" }), email({ domain: "x.test" }), noEmail],
  ],
  ["ip.given", "is", true, [facts()], [noIp]],
  ["ip.level", "equals", "warning", [facts()], [ip({ level: 4 }), noIp]],
  ["ip.level", "at_least", "warning", [facts(), ip({ level: 4 })], [ip({ level: 2 }), noIp]],
  ["ip.level", "at_most", "informative", [ip({ level: 0 }), ip({ level: 1 })], [facts(), noIp]],
  ["ip.level", "in", ["ok", "bad"], [ip({ level: 0 }), ip({ level: 4 })], [facts(), noIp]],
  ["ip.level", "not_in", ["ok"], [facts()], [ip({ level: 0 }), noIp]],
  ["ip.risky", "is", true, [facts()], [ip({ risky: false }), noIp]],
  ["ip.kind", "has", "vpn", [facts(), ip({ kinds: KIND.vpn })], [ip({ kinds: KIND.hosting }), noIp]],
  ["ip.kind", "has_any", ["scanner", "vpn"], [facts()], [ip({ kinds: KIND.isp }), noIp]],
  ["ip.kind", "has_none", ["vpn", "hosting"], [ip({ kinds: KIND.isp }), ip({ kinds: 0 })], [facts(), noIp]],
  ["ip.country", "equals", "de", [facts()], [ip({ country: "FR" }), ip({ country: "" }), noIp]],
  ["ip.country", "not_in", ["FR"], [facts(), ip({ country: "" })], [ip({ country: "FR" }), noIp]],
  ["ip.asn", "equals", "AS9009", [facts()], [ip({ asn: 9010 }), noIp]],
  ["ip.asn", "in", [15169, "AS9009"], [facts()], [ip({ asn: 0 }), noIp]],
  ["ip.reports", "at_least", 3, [facts()], [ip({ reports: 2 }), noIp]],
  ["ip.reported_locally", "is", true, [ip({ reportedLocally: true })], [facts(), noIp]],
  ["ip.tor", "is", true, [ip({ tor: true })], [facts(), noIp]],
  ["ip.tor", "is", false, [facts()], [ip({ tor: true }), noIp]],
];

describe("each comparison", () => {
  for (const [field, op, value, yes, no] of COMPARISONS)
    test(`${field} ${op} ${JSON.stringify(value)}`, () => {
      const condition = { field, op, value };
      for (const f of yes) expect({ f, matched: matches(condition, f) }).toEqual({ f, matched: true });
      for (const f of no) expect({ f, matched: matches(condition, f) }).toEqual({ f, matched: false });
    });
});

describe("groups", () => {
  const disposable = { field: "email.disposable", op: "is", value: true };
  const tor = { field: "ip.tor", op: "is", value: true };
  const cases: [string, unknown, AssessmentFacts, boolean][] = [
    ["all: both hold", { all: [disposable, { field: "ip.kind", op: "has", value: "vpn" }] }, facts(), true],
    ["all: one fails", { all: [disposable, tor] }, facts(), false],
    ["any: one holds", { any: [tor, disposable] }, facts(), true],
    ["any: none holds", { any: [tor, { field: "email.free", op: "is", value: true }] }, facts(), false],
    [
      "any inside all",
      { all: [disposable, { any: [tor, { field: "ip.country", op: "in", value: ["DE"] }] }] },
      facts(),
      true,
    ],
    [
      "all inside any, failing",
      { any: [{ all: [disposable, tor] }, { field: "score", op: "at_least", value: 90 }] },
      facts(),
      false,
    ],
  ];
  for (const [name, conditions, f, expected] of cases)
    test(name, () => {
      const policy = policyOf([{ ...when(null), conditions }]);
      expect(policy.decide(f).rule !== null).toBe(expected);
    });
});

describe("lists, each field looked up once for all its lists", () => {
  const decidedBy = (rules: unknown[], f: AssessmentFacts) => {
    const outcome = policyOf(rules).decide(f);
    return { rule: outcome.rule?.id ?? null, shadow: outcome.shadow?.map((r) => r.id) ?? [] };
  };
  const rule = (id: string, condition: unknown, mode = "enforce") => when(condition, { id, mode });
  test("one value in several lists of a field: each list answers for itself", () => {
    const rules = [
      rule("a", { field: "ip.country", op: "not_in", value: ["DE", "FR"] }),
      rule("b", { field: "ip.country", op: "in", value: ["FR", "DE"] }, "shadow"),
      rule("c", { field: "ip.country", op: "in", value: ["GB"] }, "shadow"),
      rule("d", { field: "ip.country", op: "in", value: ["DE"] }),
    ];
    expect(decidedBy(rules, facts())).toEqual({ rule: "d", shadow: ["b"] });
    expect(decidedBy(rules, ip({ country: "GB" }))).toEqual({ rule: "a", shadow: [] });
    expect(decidedBy(rules, ip({ country: "FR" }))).toEqual({ rule: null, shadow: ["b"] });
  });
  test("the same value listed for two fields marks only the field that holds it", () => {
    const rules = [
      rule("score", { field: "score", op: "in", value: [4] }),
      rule("level", { field: "ip.level", op: "in", value: ["bad"] }),
      rule("reports", { field: "ip.reports", op: "in", value: [4, 60] }),
    ];
    expect(decidedBy(rules, facts())).toEqual({ rule: "reports", shadow: [] });
    expect(decidedBy(rules, facts({ score: 4, ip: { ...IP, reports: 0 } }))).toEqual({ rule: "score", shadow: [] });
    expect(decidedBy(rules, facts({ ip: { ...IP, level: 4, reports: 0 } }))).toEqual({ rule: "level", shadow: [] });
    expect(decidedBy(rules, facts({ score: 60, ip: { ...IP, reports: 3 } }))).toEqual({ rule: null, shadow: [] });
  });
  test("a domain and its parent in different lists: both lists hold the subdomain", () => {
    const rules = [
      rule("parent", { field: "email.domain", op: "in", value: ["example.com"] }, "shadow"),
      rule("exact", { field: "email.domain", op: "in", value: ["mail.example.com", "other.test"] }),
      rule("not-parent", { field: "email.domain", op: "not_in", value: ["example.com"] }),
    ];
    expect(decidedBy(rules, facts())).toEqual({ rule: "exact", shadow: ["parent"] });
    expect(decidedBy(rules, email({ domain: "example.com" }))).toEqual({ rule: null, shadow: ["parent"] });
    expect(decidedBy(rules, email({ domain: "x.other.test" }))).toEqual({ rule: "exact", shadow: [] });
    expect(decidedBy(rules, email({ domain: "example.org" }))).toEqual({ rule: "not-parent", shadow: [] });
    expect(decidedBy(rules, noEmail)).toEqual({ rule: null, shadow: [] });
  });
  test("an assessment whose values no list holds is told apart from one whose are, in any order", () => {
    const policy = policyOf([rule("a", { field: "ip.asn", op: "in", value: [9009] })]);
    expect(policy.decide(ip({ asn: 1 })).rule).toBeNull();
    expect(policy.decide(facts()).rule?.id).toBe("a");
    expect(policy.decide(ip({ asn: 1 })).rule).toBeNull();
  });
});

describe("ordering, shadow and the default", () => {
  const vpn = { field: "ip.kind", op: "has", value: "vpn" };
  const never = { field: "ip.tor", op: "is", value: true };

  type OrderRow = [
    name: string,
    rules: Record<string, unknown>[],
    decision: string,
    rule: string | null,
    shadow: string[],
  ];
  const ORDER: OrderRow[] = [
    ["no rule: the score decides (60: a challenge)", [], "challenge", null, []],
    [
      "the first enforcing rule that matches decides",
      [when(never, { id: "a", decision: "block" }), when(vpn, { id: "b", decision: "allow" }), when(vpn, { id: "c" })],
      "allow",
      "b",
      [],
    ],
    [
      "a shadow rule never decides; one before the deciding rule would have",
      [
        when(vpn, { id: "s1", mode: "shadow" }),
        when(vpn, { id: "e", decision: "allow" }),
        when(vpn, { id: "s2", mode: "shadow" }),
      ],
      "allow",
      "e",
      ["s1"],
    ],
    [
      "shadow rules only: each one that matches would have decided, the score decides",
      [
        when(vpn, { id: "s1", mode: "shadow" }),
        when(never, { id: "s2", mode: "shadow" }),
        when(vpn, { id: "s3", mode: "shadow", decision: "allow" }),
      ],
      "challenge",
      null,
      ["s1", "s3"],
    ],
    [
      "an allow rule overrules a high score",
      [when({ field: "ip.asn", op: "in", value: [9009] }, { id: "office", decision: "allow" })],
      "allow",
      "office",
      [],
    ],
  ];
  for (const [name, rules, decision, rule, shadow] of ORDER)
    test(name, () => {
      const outcome = policyOf(rules).decide(facts());
      const shadowIds = (outcome.shadow ?? []).map((r) => r.id);
      expect({ decision: outcome.decision as string, rule: outcome.rule?.id ?? null, shadow: shadowIds }).toEqual({
        decision,
        rule,
        shadow,
      });
    });

  test("switching a rule from shadow to enforce changes the decision and nothing else", () => {
    const shadowed = [when(vpn, { id: "s", mode: "shadow", decision: "block" })];
    const before = policyOf(shadowed).decide(facts());
    const after = policyOf([{ ...shadowed[0], mode: "enforce" }]).decide(facts());
    expect(before).toMatchObject({ decision: "challenge", rule: null });
    expect(before.shadow!.map((r) => [r.id, r.decision])).toEqual([["s", "block"]]);
    expect(after).toMatchObject({ decision: "block", rule: { id: "s" }, shadow: null });
  });

  test("the default decision by score: allow below 50, challenge below 85, block from 85", () => {
    expect([0, 49, 50, 84, 85, 100].map((score) => DEFAULT_ONLY.decide(facts({ score })).decision)).toEqual([
      "allow",
      "allow",
      "challenge",
      "challenge",
      "block",
      "block",
    ]);
    expect(DEFAULT_POLICY).toMatchObject({ challengeAt: 50, blockAt: 85 });
  });
});

describe("expiry and the version", () => {
  const rules = (): PolicyRule[] =>
    parseRuleSet(
      {
        rules: [
          when({ field: "ip.kind", op: "has", value: "vpn" }, { id: "until-new-year", expires: "2026-12-31" }),
          when({ field: "ip.kind", op: "has", value: "vpn" }, { id: "forever", decision: "allow" }),
        ],
      },
      { author: "t", nowMs: NOW },
    );

  test("an expired rule no longer applies: the next one decides", () => {
    expect(CompiledPolicy.inForce(rules(), NOW).decide(facts()).rule?.id).toBe("until-new-year");
    expect(CompiledPolicy.inForce(rules(), Date.parse("2026-12-31T23:59:59Z")).decide(facts()).rule?.id).toBe(
      "until-new-year",
    );
    expect(CompiledPolicy.inForce(rules(), Date.parse("2027-01-01T00:00:00Z")).decide(facts()).rule?.id).toBe(
      "forever",
    );
  });

  test("the version: the defaults' alone, or with a digest of the rules that decide", () => {
    expect(DEFAULT_ONLY.version).toBe("default-1");
    const a = CompiledPolicy.inForce(rules(), NOW);
    expect(a.version).toMatch(/^default-1\+[0-9a-f]{8}$/);
    const relabelled = rules().map((r) => ({ ...r, author: "someone else", created: "2020-01-01T00:00:00.000Z" }));
    expect(new CompiledPolicy(relabelled).version).toBe(new CompiledPolicy(rules()).version);
    const shadowed = rules().map((r, i) => (i === 1 ? { ...r, mode: "shadow" as const } : r));
    expect(new CompiledPolicy(shadowed).version).not.toBe(new CompiledPolicy(rules()).version);
    expect(CompiledPolicy.inForce(rules(), Date.parse("2027-01-01T00:00:00Z")).version).not.toBe(a.version);
  });
});

describe("the generated function", () => {
  test("holds the fields' expressions and numbers, never a rule's text values: those are data", () => {
    const policy = policyOf([
      when({ field: "event", op: "in", value: ["password_reset", "gift-card"] }, { id: "a" }),
      when({ field: "email.domain", op: "in", value: ["evil-example.com"] }, { id: "b", mode: "shadow" }),
      when({ field: "ip.country", op: "not_in", value: ["GB"] }, { id: "c" }),
      when({ field: "email.domain", op: "equals", value: "only-this.example" }, { id: "d" }),
    ]);
    const source = policy.decide.toString();
    for (const value of ["password_reset", "gift-card", "evil-example", "GB", "only-this"])
      expect(source).not.toContain(value);
    expect(policy.decide(facts({ event: "gift-card" })).rule?.id).toBe("a");
    expect(
      policy.decide(facts({ event: "x", email: new EmailSide("a.evil-example.com", false, false) })).shadow?.[0].id,
    ).toBe("b");
    expect(
      policy.decide(
        facts({ event: "x", email: new EmailSide("only-this.example", false, false), ip: { ...IP, country: "GB" } }),
      ).rule?.id,
    ).toBe("d");
  });

  test("500 rules of 64 comparisons each (beyond the size limit a stored set has) compile and decide", () => {
    const comparisons = Array.from({ length: 64 }, (_, i) => ({ field: "ip.asn", op: "equals", value: 1000 + i }));
    const rules = Array.from({ length: 499 }, (_, i) =>
      parseRule({ ...when(null), id: `r${i}`, conditions: { any: comparisons } }, i, { author: "t", nowMs: NOW }),
    );
    rules.push(
      parseRule(when({ field: "ip.asn", op: "equals", value: 9009 }, { id: "last" }), 499, { author: "t", nowMs: NOW }),
    );
    const policy = new CompiledPolicy(rules);
    expect(policy.decide(facts()).rule?.id).toBe("last");
    expect(policy.decide(facts({ ip: { ...IP, asn: 1063 } })).rule?.id).toBe("r0");
  });
});
