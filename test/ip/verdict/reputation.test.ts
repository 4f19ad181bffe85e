import { describe, expect, test } from "bun:test";
import { KIND } from "../../../src/ip/verdict/network-kinds.ts";
import {
  CLEAN_REPUTATION,
  type Counters,
  DEFAULT_THRESHOLDS,
  type VerdictFlags,
  ruleOf,
  verdict,
} from "../../../src/ip/verdict/reputation.ts";
import type { Rule } from "../../../src/ip/verdict/reputation-schema.ts";

const ZERO: Counters = { bot: 0, probe: 0, rate: 0, attack: 0, crawler: 0 };
const NONE: VerdictFlags = {
  confirmedBad: false,
  verifiedCrawler: false,
  relay: false,
  anycast: false,
  allowlisted: false,
  denylisted: false,
};

type Row = [
  name: string,
  counters: Partial<Counters>,
  kinds: number,
  flags: Partial<VerdictFlags>,
  expected: Partial<Rule>,
];

/** The model as a table: inputs → the rule that sets the level, first match wins. */
const MODEL: Row[] = [
  [
    "the operator's allowlist, whatever else",
    { attack: 50, bot: 50 },
    KIND.scanner | KIND.vpn,
    { allowlisted: true, confirmedBad: true, denylisted: true },
    { id: "allowlisted", level: "ok", reports: 100 },
  ],
  [
    "the operator's denylist, even for a verified crawler",
    {},
    KIND.crawler,
    { denylisted: true, verifiedCrawler: true },
    { id: "denylisted", level: "bad" },
  ],
  ["Spamhaus DROP with no reports", {}, 0, { confirmedBad: true }, { id: "confirmed-bad", level: "bad", reports: 0 }],
  [
    "Spamhaus DROP on a hosting network",
    {},
    KIND.hosting,
    { confirmedBad: true },
    { id: "confirmed-bad", level: "bad" },
  ],
  ["6 independent reports", { attack: 6 }, 0, {}, { id: "reports>=bad", level: "bad", reports: 6, threshold: 6 }],
  [
    "6 reports over several categories",
    { bot: 1, probe: 1, rate: 1, attack: 3 },
    0,
    {},
    { id: "reports>=bad", level: "bad", reports: 6 },
  ],
  ["5 reports", { attack: 5 }, 0, {}, { id: "reports>=warning", level: "warning", reports: 5, threshold: 3 }],
  ["3 reports", { bot: 1, attack: 2 }, 0, {}, { id: "reports>=warning", level: "warning", reports: 3, threshold: 3 }],
  [
    "a verified crawler with 10 reports",
    { attack: 10 },
    KIND.crawler,
    { verifiedCrawler: true },
    { id: "benign-cap", level: "suspicious", capped: { from: "bad", by: "verified-crawler" } },
  ],
  [
    "a verified crawler on Spamhaus DROP",
    {},
    KIND.crawler,
    { verifiedCrawler: true, confirmedBad: true },
    { id: "benign-cap", level: "suspicious", capped: { from: "bad", by: "verified-crawler" } },
  ],
  [
    "a public resolver with 4 reports",
    { attack: 4 },
    0,
    { anycast: true },
    { id: "benign-cap", level: "suspicious", capped: { from: "warning", by: "anycast" } },
  ],
  [
    "anycast space with 6 reports",
    { attack: 6 },
    KIND.hosting,
    { anycast: true },
    { id: "benign-cap", level: "suspicious", capped: { from: "bad", by: "anycast" } },
  ],
  [
    "anycast space on Spamhaus DROP stays bad (DROP lists two /23s in Cloudflare's 172.64.0.0/13)",
    { attack: 1 },
    KIND.hosting,
    { anycast: true, confirmedBad: true },
    { id: "confirmed-bad", level: "bad" },
  ],
  [
    "a privacy relay's exit with 7 reports",
    { attack: 7 },
    0,
    { relay: true },
    { id: "benign-cap", level: "suspicious", capped: { from: "bad", by: "relay" } },
  ],
  [
    "a privacy relay's exit on Spamhaus DROP stays bad",
    {},
    0,
    { relay: true, confirmedBad: true },
    { id: "confirmed-bad", level: "bad" },
  ],
  ["a privacy relay's exit with no reports", {}, 0, { relay: true }, { id: "nothing", level: "ok" }],
  [
    "a cloud range with 7 reports: the hosting label lowers nothing",
    { attack: 7 },
    KIND.hosting,
    {},
    { id: "reports>=bad", level: "bad" },
  ],
  ["a cloud range with 3 reports", { attack: 3 }, KIND.hosting, {}, { id: "reports>=warning", level: "warning" }],
  ["2 reports", { attack: 2 }, 0, {}, { id: "reports>=suspicious", level: "suspicious", reports: 2, threshold: 2 }],
  [
    "a verified crawler with 2 reports keeps suspicious",
    { bot: 2 },
    KIND.crawler,
    { verifiedCrawler: true },
    { id: "reports>=suspicious", level: "suspicious" },
  ],
  ["a scanner with no reports", {}, KIND.scanner, {}, { id: "kind-scanner", level: "suspicious" }],
  ["a scanner with one report", { probe: 1 }, KIND.scanner, {}, { id: "kind-scanner", level: "suspicious" }],
  ["1 report", { rate: 1 }, 0, {}, { id: "reports>=informative", level: "informative", reports: 1, threshold: 1 }],
  [
    "a hosting network with one report",
    { bot: 1 },
    KIND.hosting,
    {},
    { id: "reports>=informative", level: "informative" },
  ],
  ["a VPN or Tor exit with no reports", {}, KIND.vpn, {}, { id: "kind-vpn-or-hosting", level: "informative" }],
  ["a hosting network with no reports", {}, KIND.hosting, {}, { id: "kind-vpn-or-hosting", level: "informative" }],
  ["no reports, no kinds", {}, 0, {}, { id: "nothing", level: "ok", reports: 0 }],
  ["an ISP", {}, KIND.isp, {}, { id: "nothing", level: "ok" }],
  ["a university on a dynamic range", {}, KIND.education | KIND.dynamic, {}, { id: "nothing", level: "ok" }],
  ["a verified crawler with no reports", {}, KIND.crawler, { verifiedCrawler: true }, { id: "nothing", level: "ok" }],
  ["anycast infrastructure with no reports", {}, 0, { anycast: true }, { id: "nothing", level: "ok" }],
];

describe("the reputation model, one row per rule", () => {
  test.each(MODEL)("%s", (_, counters, kinds, flags, expected) => {
    const c = { ...ZERO, ...counters };
    expect(ruleOf(c, kinds, { ...NONE, ...flags }, DEFAULT_THRESHOLDS)).toMatchObject(expected);
    expect(verdict(c, kinds, { ...NONE, ...flags }).reputation).toBe(expected.level!);
  });

  test("every rule of the model has a row", () => {
    const ids = new Set(
      MODEL.map(
        ([, counters, kinds, flags]) =>
          ruleOf({ ...ZERO, ...counters }, kinds, { ...NONE, ...flags }, DEFAULT_THRESHOLDS).id,
      ),
    );
    expect([...ids].sort()).toEqual([
      "allowlisted",
      "benign-cap",
      "confirmed-bad",
      "denylisted",
      "kind-scanner",
      "kind-vpn-or-hosting",
      "nothing",
      "reports>=bad",
      "reports>=informative",
      "reports>=suspicious",
      "reports>=warning",
    ]);
  });
});

describe("thresholds are configuration", () => {
  test("the calibrated defaults, which cannot be changed in place", () => {
    expect(DEFAULT_THRESHOLDS).toEqual({ bad: 6, warning: 3, suspicious: 2, informative: 1 });
    expect(Object.isFrozen(DEFAULT_THRESHOLDS)).toBe(true);
  });
  test.each([
    [{ warning: 5 }, { bot: 4 }, "suspicious"],
    [{ bad: 10 }, { bot: 9 }, "warning"],
    [{ suspicious: 1 }, { bot: 1 }, "suspicious"],
    [{ informative: 2, suspicious: 2 }, { bot: 1 }, "ok"],
  ])("%p: %p → %s", (thresholds, counters, level) => {
    expect(verdict({ ...ZERO, ...counters }, 0, NONE, { ...DEFAULT_THRESHOLDS, ...thresholds }).reputation).toBe(
      level as never,
    );
  });
});

describe("the reputation object", () => {
  test("the spec's keys in the spec's order; sum is the total; risky for bad and warning", () => {
    const r = verdict({ bot: 1, probe: 0, rate: 0, attack: 1, crawler: 1 }, KIND.hosting | KIND.vpn, NONE);
    expect(Object.keys(r)).toEqual(["risky", "reputation", "bot", "probe", "rate", "attack", "crawler", "sum", "kind"]);
    expect(r).toEqual({
      risky: true,
      reputation: "warning",
      bot: 1,
      probe: 0,
      rate: 0,
      attack: 1,
      crawler: 1,
      sum: 3,
      kind: ["hosting", "vpn"],
    });
  });

  test.each([
    [{ bot: 6 }, true],
    [{ bot: 3 }, true],
    [{ bot: 2 }, false],
    [{ bot: 1 }, false],
    [{}, false],
  ])("risky for %p is %p", (counters, risky) => {
    expect(verdict({ ...ZERO, ...counters }, 0, NONE).risky).toBe(risky);
  });

  test("the clean reputation is the spec's private-address one, frozen", () => {
    expect(CLEAN_REPUTATION).toEqual({
      risky: false,
      reputation: "ok",
      bot: 0,
      probe: 0,
      rate: 0,
      attack: 0,
      crawler: 0,
      sum: 0,
      kind: [],
    });
    expect(Object.keys(CLEAN_REPUTATION)).toEqual(Object.keys(verdict(ZERO, 0, NONE)));
    expect(Object.isFrozen(CLEAN_REPUTATION) && Object.isFrozen(CLEAN_REPUTATION.kind)).toBe(true);
    expect(verdict(ZERO, 0, NONE)).toEqual(CLEAN_REPUTATION);
  });
});
