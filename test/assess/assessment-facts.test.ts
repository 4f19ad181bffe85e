import { describe, expect, test } from "bun:test";
import { type AssessmentFacts, assessmentFacts } from "../../src/assess/assessment-facts.ts";
import { assess } from "../../src/assess/assessment.ts";
import { assessmentJson } from "../../src/assess/assessment-json.ts";
import { CompiledPolicy, DEFAULT_ONLY } from "../../src/assess/compiled-policy.ts";
import { parseRuleSet } from "../../src/assess/parse-policy.ts";
import { REASON_CODES, REASON_WEIGHTS } from "../../src/assess/reason-codes.ts";
import { Answers } from "../../src/checks/answers.ts";
import type { Snapshot } from "../../src/datasets/snapshot.ts";
import type { EmailAnswer } from "../../src/email/email-answer-schema.ts";
import type { MailFinding } from "../../src/email/mail-finding.ts";
import { rangeOfCidr } from "../../src/ip/address/address-range.ts";
import type { ParsedIp } from "../../src/ip/address/parse.ts";
import { EvidenceIndex, EvidenceIndexBuilder } from "../../src/ip/indexes/evidence-index.ts";
import { FLAG, ReputationIndex, ReputationIndexBuilder } from "../../src/ip/indexes/reputation-index.ts";
import { OverrideTable } from "../../src/ip/overrides/override-table.ts";
import type { LocalReportView } from "../../src/ip/verdict/local-reports.ts";
import { KIND } from "../../src/ip/verdict/network-kinds.ts";
import type { ReportingSource } from "../../src/ip/verdict/report-counting.ts";
import { testSnapshot } from "../support/test-app.ts";

const LINE = { reason: "ticket 4711", author: "jane", created: "2026-11-01T00:00:00.000Z", until: null };

/** The bundled data with a few listings: reports, a Tor exit, Spamhaus DROP, and the operator's lines. */
async function snapshot(): Promise<Snapshot> {
  const base = await testSnapshot();
  const feeds = new ReputationIndexBuilder();
  const tor = new EvidenceIndexBuilder();
  const listings: [string, string, { count: number } | { flags: number }][] = [
    ["ipsum", "81.2.69.142/32", { count: 4 }],
    ["ipsum", "81.2.69.143/32", { count: 1 }],
    ["tor-exits", "81.2.69.160/32", { flags: KIND.vpn }],
    ["x4bnet-vpn-ipv4", "81.2.69.161/32", { flags: KIND.vpn }],
    ["spamhaus-drop-v4", "5.188.10.0/23", { flags: FLAG.confirmedBad }],
    ["ipsum", "81.2.69.170/32", { count: 9 }],
  ];
  for (const [source, cidr, said] of listings) {
    feeds.add(rangeOfCidr(cidr), { source, ...said });
    if (source === "tor-exits") tor.add(rangeOfCidr(cidr), { count: 1, firstSeen: 1_770_000_000 });
  }
  const reporting = new Map<string, ReportingSource>([["ipsum", { category: "attack", weight: 1, includes: [] }]]);
  return {
    ...base,
    email: {
      ...base.email,
      overrides: new Map([
        ["tempmail.dev", { domain: "tempmail.dev", action: "allow" as const, ...LINE }],
        ["corp.example", { domain: "corp.example", action: "deny" as const, ...LINE }],
      ]),
    },
    ip: {
      ...base.ip,
      feeds: new ReputationIndex(feeds.build({}, reporting)),
      evidence: new Map([["tor-exits", new EvidenceIndex(tor.build())]]),
      overrides: OverrideTable.of([
        { target: "81.2.69.170", action: "allow", ...LINE, source: "database" },
        { target: "81.2.69.171", action: "deny", ...LINE, source: "database" },
      ]),
    },
  };
}

const reported: LocalReportView = {
  contributionOf: (ip: ParsedIp) =>
    ip.text === "81.2.69.150"
      ? {
          counters: { bot: 0, probe: 0, rate: 0, attack: 2, crawler: 0 },
          categories: [{ category: "attack", reporters: 2, counted: 2, firstMs: 0, lastMs: 0 }],
        }
      : null,
};

/** What DNS evidence (when on) found of two domains no list decides: a null MX, and mail servers. */
const FOUND = { lookup: "looked-up", shared: [], exempt: [] } as const;
const MAIL = new Map<string, MailFinding>([
  ["parked-domain.net", { ...FOUND, route: { kind: "null-mx" }, deliverable: false }],
  ["gone-domain.net", { ...FOUND, route: { kind: "no-mail" }, deliverable: false }],
  [
    "ordinary-company.net",
    {
      ...FOUND,
      route: { kind: "mx", servers: [{ host: "mx.ordinary-company.net", addresses: [] }] },
      deliverable: true,
    },
  ],
]);

const snap = await snapshot();
const answers = new Answers(snap, false, reported);
const emailOf = (email: string): EmailAnswer => {
  const a = answers.email(email) as EmailAnswer;
  const mail = MAIL.get(a.domain);
  return mail === undefined ? a : { ...a, mail };
};
const factsOf = (email: string | null, ip: string | null, event: string | null = null): AssessmentFacts =>
  assessmentFacts(snap, email === null ? null : emailOf(email), ip === null ? null : (answers.ip(ip) as never), event);

type Row = [name: string, email: string | null, ip: string | null, score: number, codes: string[], decision: string];

/** The default policy as a table: what each signal adds, and what the sum decides. */
const DEFAULTS: Row[] = [
  ["a free provider from a residential network", "someone@gmail.com", "2.125.160.216", 0, [], "allow"],
  [
    "a disposable domain alone: a challenge, never a block",
    "someone@mailinator.com",
    null,
    60,
    ["email.disposable"],
    "challenge",
  ],
  ["a subdomain of a wildcard-listed service", "a@x.33mail.com", null, 60, ["email.disposable"], "challenge"],
  ["a reserved name is disposable", "a@example.com", null, 60, ["email.disposable"], "challenge"],
  ["a hosting network (Google) alone", null, "8.8.8.8", 20, ["ip.reputation.informative", "ip.kind.hosting"], "allow"],
  ["a VPN range alone", null, "81.2.69.161", 30, ["ip.reputation.informative", "ip.kind.vpn"], "allow"],
  [
    "a Tor exit alone: a challenge, its VPN kind not counted again",
    null,
    "81.2.69.160",
    50,
    ["ip.reputation.informative", "ip.tor"],
    "challenge",
  ],
  ["one report", null, "81.2.69.143", 5, ["ip.reputation.informative"], "allow"],
  ["4 reports: warning, a challenge", null, "81.2.69.142", 60, ["ip.reputation.warning"], "challenge"],
  ["Spamhaus DROP: bad, a block", null, "5.188.10.1", 90, ["ip.reputation.bad"], "block"],
  [
    "a disposable domain from a VPN: two signals, a block",
    "someone@mailinator.com",
    "81.2.69.161",
    90,
    ["email.disposable", "ip.reputation.informative", "ip.kind.vpn"],
    "block",
  ],
  [
    "a disposable domain from a hosting network: a challenge",
    "someone@mailinator.com",
    "8.8.8.8",
    80,
    ["email.disposable", "ip.reputation.informative", "ip.kind.hosting"],
    "challenge",
  ],
  [
    "warning and disposable: capped at 100",
    "someone@mailinator.com",
    "81.2.69.142",
    100,
    ["email.disposable", "ip.reputation.warning"],
    "block",
  ],
  [
    "reported by this appliance's keys",
    null,
    "81.2.69.150",
    50,
    ["ip.reputation.suspicious", "ip.reported_locally"],
    "challenge",
  ],
  [
    "the operator's allow line for the domain: no other email signal",
    "a@tempmail.dev",
    null,
    0,
    ["override.allow"],
    "allow",
  ],
  [
    "the operator's deny line for a parent of the domain: a block",
    "a@mx.corp.example",
    null,
    100,
    ["override.deny"],
    "block",
  ],
  ["the operator's allow line for the address beats 9 reports", null, "81.2.69.170", 0, ["override.allow"], "allow"],
  ["the operator's deny line for the address", "someone@gmail.com", "81.2.69.171", 100, ["override.deny"], "block"],
  ["a private address: nothing looked up, nothing to say", null, "10.0.0.1", 0, [], "allow"],
  [
    "DNS evidence: a domain with a null MX takes no mail, a challenge",
    "a@parked-domain.net",
    null,
    50,
    ["email.undeliverable"],
    "challenge",
  ],
  [
    "DNS evidence: neither MX nor address, from a data centre",
    "a@gone-domain.net",
    "8.8.8.8",
    70,
    ["email.undeliverable", "ip.reputation.informative", "ip.kind.hosting"],
    "challenge",
  ],
  ["DNS evidence: a domain with mail servers adds nothing", "a@ordinary-company.net", null, 0, [], "allow"],
];

describe("the default policy's reasons and score", () => {
  for (const [name, email, ip, score, codes, decision] of DEFAULTS)
    test(name, () => {
      const f = factsOf(email, ip);
      expect({ score: f.score, codes: f.reasons.map((r) => r.code as string) }).toEqual({ score, codes });
      for (const r of f.reasons) expect(r.weight).toBe(REASON_WEIGHTS[r.code]);
      expect(assess(DEFAULT_ONLY, f).decision).toBe(decision as never);
    });

  test("every code has a weight from 0 to 100, and the table above uses most of them", () => {
    for (const code of REASON_CODES) expect(REASON_WEIGHTS[code]).toBeWithin(0, 101);
    const used = new Set(DEFAULTS.flatMap((row) => row[4]));
    expect(REASON_CODES.filter((c) => !used.has(c))).toEqual([]);
  });

  test("each reason says the fact it stands on", () => {
    const facts = (email: string | null, ip: string | null) => factsOf(email, ip).reasons.map((r) => r.fact);
    expect(facts("someone@mailinator.com", "81.2.69.142")).toEqual([
      "mailinator.com is a disposable-mail domain",
      "81.2.69.142: reputation warning, 4 independent reports",
    ]);
    expect(facts("a@parked-domain.net", null)).toEqual([
      "no mail can reach parked-domain.net (its DNS publishes a null MX)",
    ]);
    expect(facts(null, "5.188.10.1")).toEqual([
      "5.188.10.1: reputation bad, on a confirmed-malicious list (Spamhaus DROP)",
    ]);
    expect(facts(null, "81.2.69.160")).toEqual([
      "81.2.69.160: reputation informative, a VPN or hosting network, no reports",
      "81.2.69.160 is a Tor exit",
    ]);
    expect(facts(null, "81.2.69.150")).toEqual([
      "81.2.69.150: reputation suspicious, 2 independent reports",
      "81.2.69.150 was reported by 2 of this appliance's keys",
    ]);
    expect(facts("a@mx.corp.example", "81.2.69.170")).toEqual([
      "mx.corp.example: the operator's deny line for corp.example (ticket 4711)",
      "81.2.69.170: the operator's allow line for 81.2.69.170 (ticket 4711)",
    ]);
  });

  test("what the rules read: the sides' fields", () => {
    expect(factsOf("someone@gmail.com", "81.2.69.160", "signup")).toMatchObject({
      event: "signup",
      email: { domain: "gmail.com", disposable: false, free: true },
      ip: {
        level: 1,
        risky: false,
        kinds: KIND.vpn,
        country: "GB",
        asn: 20712,
        reports: 0,
        reportedLocally: false,
        tor: true,
      },
    });
    expect(factsOf(null, "81.2.69.150").ip).toMatchObject({ level: 2, reports: 2, reportedLocally: true, tor: false });
    expect(factsOf("a@b.co", null)).toMatchObject({ ip: null });
  });
});

describe("the answer", () => {
  const rules = parseRuleSet(
    {
      rules: [
        {
          id: "tor-payments",
          conditions: {
            all: [
              { field: "event", op: "equals", value: "payment" },
              { field: "ip.tor", op: "is", value: true },
            ],
          },
          decision: "block",
          reason: "no card payments over Tor",
          mode: "shadow",
        },
        {
          id: "staff",
          conditions: { any: [{ field: "email.domain", op: "in", value: ["gmail.com"] }] },
          decision: "allow",
          reason: "staff test accounts",
          mode: "enforce",
        },
      ],
    },
    { author: "jane", nowMs: Date.UTC(2026, 10, 23) },
  );
  const policy = new CompiledPolicy(rules);

  test("decision, score, reasons, rule, policy, event, then the two answers as the checks give them", () => {
    const email = answers.email("someone@gmail.com") as EmailAnswer;
    const ip = answers.ip("81.2.69.160") as never;
    const a = assess(policy, assessmentFacts(snap, email, ip, "payment"));
    const json = assessmentJson(a, answers.emailJson(email), answers.ipJson(ip), false);
    const parsed = JSON.parse(json);
    expect(Object.keys(parsed)).toEqual(["decision", "score", "reasons", "rule", "policy", "event", "email", "ip"]);
    expect(parsed).toMatchObject({
      decision: "allow",
      score: 50,
      rule: { id: "staff", decision: "allow", mode: "enforce", reason: "staff test accounts" },
      policy: policy.version,
      event: "payment",
      email: JSON.parse(answers.emailJson(email)),
      ip: JSON.parse(answers.ipJson(ip)),
    });
    expect(parsed.reasons[1]).toEqual({ code: "ip.tor", weight: 45, fact: "81.2.69.160 is a Tor exit" });
    expect(JSON.parse(assessmentJson(a, answers.emailJson(email), answers.ipJson(ip), true)).shadow).toEqual([
      { id: "tor-payments", decision: "block", mode: "shadow", reason: "no card payments over Tor" },
    ]);
  });

  test("a value not asked about is null; no rule: rule null", () => {
    const a = assess(DEFAULT_ONLY, assessmentFacts(snap, null, null, null));
    expect(JSON.parse(assessmentJson(a, null, null, true))).toEqual({
      decision: "allow",
      score: 0,
      reasons: [],
      rule: null,
      policy: "default-1",
      event: null,
      email: null,
      ip: null,
      shadow: [],
    });
  });
});
