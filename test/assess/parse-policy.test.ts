import { describe, expect, test } from "bun:test";
import { POLICY_LIMITS, PolicyError, parseRule, parseRuleSet } from "../../src/assess/parse-policy.ts";

const NOW = Date.UTC(2026, 10, 23, 12);
const DEFAULTS = { author: "jane", nowMs: NOW };

const rule = (extra: Record<string, unknown> = {}) => ({
  id: "disposable-vpn",
  conditions: {
    all: [
      { field: "email.disposable", op: "is", value: true },
      { field: "ip.kind", op: "has", value: "vpn" },
    ],
  },
  decision: "block",
  reason: "disposable address from a VPN",
  ...extra,
});

function problemsOf(input: unknown): { index: number | null; rule: string | null; path: string; message: string }[] {
  try {
    parseRuleSet(input, DEFAULTS);
  } catch (err) {
    if (err instanceof PolicyError) return [...err.problems];
    throw err;
  }
  throw new Error("the set was accepted");
}

describe("a rule set that parses is normalised", () => {
  test("defaults: shadow mode, the writer as author, now as created, no expiry", () => {
    expect(parseRuleSet({ rules: [rule()] }, DEFAULTS)).toEqual([
      {
        ...rule(),
        author: "jane",
        created: "2026-11-23T12:00:00.000Z",
        expires: null,
        mode: "shadow",
      },
    ] as never);
  });

  test("values in their canonical form", () => {
    const [parsed] = parseRuleSet(
      {
        rules: [
          rule({
            conditions: {
              any: [
                { field: "ip.country", op: "in", value: ["de", "Fr", "DE"] },
                { field: "ip.asn", op: "in", value: ["AS15169", "as9009", 64500] },
                { field: "email.domain", op: "in", value: ["Example.COM", "пример.рф"] },
                { field: "event", op: "equals", value: "SignUp" },
                { all: [{ field: "ip.level", op: "at_least", value: "warning" }] },
              ],
            },
            expires: "2027-01-31",
            mode: "enforce",
            author: "  ops team ",
            reason: "  spaced  ",
          }),
        ],
      },
      DEFAULTS,
    );
    expect(parsed.conditions).toEqual({
      any: [
        { field: "ip.country", op: "in", value: ["DE", "FR"] },
        { field: "ip.asn", op: "in", value: [15169, 9009, 64500] },
        { field: "email.domain", op: "in", value: ["example.com", "xn--e1afmkfd.xn--p1ai"] },
        { field: "event", op: "equals", value: "signup" },
        { all: [{ field: "ip.level", op: "at_least", value: "warning" }] },
      ],
    });
    expect(parsed.expires).toBe("2027-02-01T00:00:00.000Z");
    expect(parsed.mode).toBe("enforce");
    expect(parsed.author).toBe("ops team");
    expect(parsed.reason).toBe("spaced");
  });

  test("a rule read back keeps its author and created instant", () => {
    const back = { ...rule(), author: "bob", created: "2026-11-01T08:00:00.000Z", expires: null, mode: "enforce" };
    expect(parseRuleSet({ rules: [back] }, DEFAULTS)[0]).toEqual(back as never);
  });

  test("an empty set is the default policy", () => {
    expect(parseRuleSet({ rules: [] }, DEFAULTS)).toEqual([]);
  });
});

type Refusal = [
  name: string,
  input: unknown,
  expected: { index: number | null; rule: string | null; path: string; message: string },
];

/** Each refusal names the rule (its id, or its place when the id is the problem) and the field. */
const REFUSALS: Refusal[] = [
  ["not an object", [rule()], { index: null, rule: null, path: "(set)", message: "an object" }],
  ["no rules list", { rule: [] }, { index: null, rule: null, path: "rule", message: "unknown key" }],
  ["rules not a list", { rules: {} }, { index: null, rule: null, path: "rules", message: "a list of rules" }],
  [
    "a rule not an object",
    { rules: ["x"] },
    { index: 0, rule: null, path: "(rule)", message: "an object, not string" },
  ],
  ["a bad id", { rules: [rule({ id: "Has Space" })] }, { index: 0, rule: null, path: "id", message: "lower-case" }],
  [
    "a duplicate id",
    { rules: [rule(), rule()] },
    { index: 1, rule: "disposable-vpn", path: "id", message: "the id of rule #1 too" },
  ],
  [
    "an unknown key",
    { rules: [rule({ priority: 3 })] },
    { index: 0, rule: "disposable-vpn", path: "priority", message: "unknown key" },
  ],
  [
    "an unknown decision",
    { rules: [rule({ decision: "deny" })] },
    { index: 0, rule: "disposable-vpn", path: "decision", message: '"deny"; one of allow, challenge, block' },
  ],
  [
    "an unknown mode",
    { rules: [rule({ mode: "test" })] },
    { index: 0, rule: "disposable-vpn", path: "mode", message: "one of enforce, shadow" },
  ],
  [
    "no reason",
    { rules: [rule({ reason: "  " })] },
    { index: 0, rule: "disposable-vpn", path: "reason", message: "say why" },
  ],
  [
    "a reason too long",
    { rules: [rule({ reason: "x".repeat(POLICY_LIMITS.reason + 1) })] },
    { index: 0, rule: "disposable-vpn", path: "reason", message: "at most 500 characters" },
  ],
  [
    "a control character in the reason",
    { rules: [rule({ reason: "a\u001b[2Jb" })] },
    { index: 0, rule: "disposable-vpn", path: "reason", message: "control characters" },
  ],
  [
    "an expiry that is no date",
    { rules: [rule({ expires: "2027-02-30" })] },
    { index: 0, rule: "disposable-vpn", path: "expires", message: "a day that exists" },
  ],
  [
    "an expiry passed",
    { rules: [rule({ expires: "2026-11-22" })] },
    { index: 0, rule: "disposable-vpn", path: "expires", message: "already passed" },
  ],
  [
    "no conditions",
    { rules: [rule({ conditions: undefined })] },
    { index: 0, rule: "disposable-vpn", path: "conditions", message: "missing" },
  ],
  [
    "both all and any",
    { rules: [rule({ conditions: { all: [], any: [] } })] },
    { index: 0, rule: "disposable-vpn", path: "conditions", message: "one of the two" },
  ],
  [
    "an empty group",
    { rules: [rule({ conditions: { any: [] } })] },
    { index: 0, rule: "disposable-vpn", path: "conditions.any", message: "at least one condition" },
  ],
  [
    "an unknown field",
    { rules: [rule({ conditions: { all: [{ field: "ip.kinds", op: "has", value: "vpn" }] } })] },
    {
      index: 0,
      rule: "disposable-vpn",
      path: "conditions.all[0].field",
      message: 'unknown field "ip.kinds"; one of event',
    },
  ],
  [
    "an operator the field does not take",
    { rules: [rule({ conditions: { all: [{ field: "email.disposable", op: "equals", value: true }] } })] },
    { index: 0, rule: "disposable-vpn", path: "conditions.all[0].op", message: "email.disposable takes is" },
  ],
  [
    "a key a condition does not have",
    { rules: [rule({ conditions: { all: [{ field: "ip.tor", op: "is", value: true, not: true }] } })] },
    { index: 0, rule: "disposable-vpn", path: "conditions.all[0].not", message: "unknown key" },
  ],
  [
    "no value",
    { rules: [rule({ conditions: { all: [{ field: "ip.tor", op: "is" }] } })] },
    { index: 0, rule: "disposable-vpn", path: "conditions.all[0].value", message: "missing" },
  ],
  [
    "a boolean as text",
    { rules: [rule({ conditions: { all: [{ field: "ip.tor", op: "is", value: "true" }] } })] },
    { index: 0, rule: "disposable-vpn", path: "conditions.all[0].value", message: "true or false" },
  ],
  [
    "an unknown level, deep in a group",
    {
      rules: [
        rule({
          conditions: {
            any: [
              { field: "ip.tor", op: "is", value: true },
              { all: [{ field: "ip.level", op: "equals", value: "high" }] },
            ],
          },
        }),
      ],
    },
    { index: 0, rule: "disposable-vpn", path: "conditions.any[1].all[0].value", message: "a level: ok, informative" },
  ],
  [
    "an unknown kind in a list",
    { rules: [rule({ conditions: { all: [{ field: "ip.kind", op: "has_any", value: ["vpn", "proxy"] }] } })] },
    { index: 0, rule: "disposable-vpn", path: "conditions.all[0].value[1]", message: "a kind: hosting" },
  ],
  [
    "a list operator with one value",
    { rules: [rule({ conditions: { all: [{ field: "ip.country", op: "in", value: "DE" }] } })] },
    { index: 0, rule: "disposable-vpn", path: "conditions.all[0].value", message: "in takes a list" },
  ],
  [
    "a country that is no code",
    { rules: [rule({ conditions: { all: [{ field: "ip.country", op: "equals", value: "Germany" }] } })] },
    { index: 0, rule: "disposable-vpn", path: "conditions.all[0].value", message: "ISO 3166-1 alpha-2" },
  ],
  [
    "an AS number out of range",
    { rules: [rule({ conditions: { all: [{ field: "ip.asn", op: "equals", value: "AS4294967296" }] } })] },
    { index: 0, rule: "disposable-vpn", path: "conditions.all[0].value", message: "AS1 to AS4294967295" },
  ],
  [
    "a domain that is no domain",
    { rules: [rule({ conditions: { all: [{ field: "email.domain", op: "in", value: ["example.com", "@@"] }] } })] },
    { index: 0, rule: "disposable-vpn", path: "conditions.all[0].value[1]", message: "a domain name" },
  ],
  [
    "a negative score",
    { rules: [rule({ conditions: { all: [{ field: "score", op: "at_least", value: -1 }] } })] },
    { index: 0, rule: "disposable-vpn", path: "conditions.all[0].value", message: "a whole number" },
  ],
  [
    "an event label with a space",
    { rules: [rule({ conditions: { all: [{ field: "event", op: "in", value: ["sign up"] }] } })] },
    { index: 0, rule: "disposable-vpn", path: "conditions.all[0].value[0]", message: "an event label" },
  ],
];

describe("a rule set that does not parse is refused whole, naming the rule and the field", () => {
  for (const [name, input, expected] of REFUSALS)
    test(name, () => {
      const problems = problemsOf(input);
      expect(problems[0]).toMatchObject({ index: expected.index, rule: expected.rule, path: expected.path });
      expect(problems[0].message).toContain(expected.message);
    });

  test("every problem of every rule at once, and the message names them", () => {
    const bad = { rules: [rule({ decision: "deny" }), rule({ id: "second", mode: "later" })] };
    expect(problemsOf(bad).map((p) => `${p.rule} ${p.path}`)).toEqual(["disposable-vpn decision", "second mode"]);
    expect(() => parseRuleSet(bad, DEFAULTS)).toThrow(
      /^rule "disposable-vpn" \(#1\): decision: "deny"; one of allow, challenge, block; rule "second" \(#2\): mode: /,
    );
  });

  test("one good rule among bad ones is not kept: nothing is", () => {
    expect(problemsOf({ rules: [rule(), rule({ id: "x", decision: 1 })] })).toHaveLength(1);
  });
});

describe("limits", () => {
  const condition = { field: "ip.tor", op: "is", value: true };
  test(`at most ${POLICY_LIMITS.rules} rules`, () => {
    const rules = Array.from({ length: POLICY_LIMITS.rules }, (_, i) => rule({ id: `r${i}` }));
    expect(parseRuleSet({ rules }, DEFAULTS)).toHaveLength(POLICY_LIMITS.rules);
    expect(problemsOf({ rules: [...rules, rule({ id: "one-more" })] })[0]).toMatchObject({
      path: "rules",
      message: `${POLICY_LIMITS.rules + 1} rules: at most ${POLICY_LIMITS.rules}`,
    });
  });

  test(`at most ${POLICY_LIMITS.conditions} comparisons in a rule, nested ones counted`, () => {
    const half = Array.from({ length: POLICY_LIMITS.conditions / 2 }, () => condition);
    expect(parseRule(rule({ conditions: { all: [...half, { any: half }] } }), 0, DEFAULTS).id).toBe("disposable-vpn");
    expect(
      problemsOf({ rules: [rule({ conditions: { all: [...half, { any: [...half, condition] }] } })] })[0],
    ).toMatchObject({
      path: "conditions",
      message: `${POLICY_LIMITS.conditions + 1} comparisons: at most ${POLICY_LIMITS.conditions} in one rule`,
    });
  });

  test(`at most ${POLICY_LIMITS.comparisons.toLocaleString("en")} comparisons in the whole set`, () => {
    const of = (n: number) => Array.from({ length: n }, () => condition);
    const rules = (last: number) => [
      ...Array.from({ length: 78 }, (_, i) => rule({ id: `r${i}`, conditions: { any: of(64) } })),
      rule({ id: "last", conditions: { any: of(last) } }),
    ];
    expect(parseRuleSet({ rules: rules(5_000 - 78 * 64) }, DEFAULTS)).toHaveLength(79);
    expect(problemsOf({ rules: rules(5_001 - 78 * 64) })[0]).toMatchObject({
      index: null,
      path: "rules",
      message: "5,001 comparisons in all: at most 5,000",
    });
  });

  test(`groups at most ${POLICY_LIMITS.depth} deep`, () => {
    let deep: unknown = { all: [condition] };
    for (let i = 1; i < POLICY_LIMITS.depth; i++) deep = { any: [deep] };
    expect(parseRule(rule({ conditions: deep }), 0, DEFAULTS).id).toBe("disposable-vpn");
    expect(problemsOf({ rules: [rule({ conditions: { all: [deep] } })] })[0].message).toContain("nested deeper than 4");
  });

  test(`at most ${POLICY_LIMITS.values.toLocaleString("en")} values in a list`, () => {
    const domains = Array.from({ length: POLICY_LIMITS.values + 1 }, (_, i) => `d${i}.example`);
    expect(
      problemsOf({ rules: [rule({ conditions: { all: [{ field: "email.domain", op: "in", value: domains }] } })] })[0],
    ).toMatchObject({
      path: "conditions.all[0].value",
      message: "10,001 values: at most 10,000",
    });
  });

  test("at most 1 MiB as JSON", () => {
    const domains = (r: number) => Array.from({ length: 9_000 }, (_, i) => `long-domain-name-${r}-${i}.example`);
    const rules = Array.from({ length: 4 }, (_, r) =>
      rule({ id: `r${r}`, conditions: { all: [{ field: "email.domain", op: "in", value: domains(r) }] } }),
    );
    expect(problemsOf({ rules })[0]).toMatchObject({ index: null, path: "rules" });
    expect(problemsOf({ rules })[0].message).toMatch(/^1,[\d,]+ bytes as JSON: at most 1,048,576$/);
    expect(parseRuleSet({ rules: rules.slice(0, 3) }, DEFAULTS)).toHaveLength(3);
  });
});
