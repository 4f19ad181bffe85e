import { describe, expect, test } from "bun:test";
import { KIND } from "../../src/ip/network-kinds.ts";
import { CLEAN_REPUTATION, type Counters, DEFAULT_THRESHOLDS, type VerdictFlags, levelOf, ruleOf, verdict } from "../../src/ip/reputation.ts";

const ZERO: Counters = { bot: 0, probe: 0, rate: 0, attack: 0, crawler: 0 };
const NONE: VerdictFlags = { confirmedBad: false, verifiedCrawler: false, allowlisted: false };

type Case = [name: string, counters: Partial<Counters>, kinds: number, flags: Partial<VerdictFlags>, level: string, rule: string];

function check(cases: Case[]) {
  test.each(cases)("%s → %s", (_, counters, kinds, flags, level, rule) => {
    expect(levelOf({ ...ZERO, ...counters }, kinds, { ...NONE, ...flags }, DEFAULT_THRESHOLDS)).toEqual({ level, rule } as never);
    expect(verdict({ ...ZERO, ...counters }, kinds, { ...NONE, ...flags }).reputation).toBe(level as never);
  });
}

describe("bad: on a confirmed-malicious list, or sum ≥ 25", () => {
  check([
    ["sum 24", { bot: 24 }, 0, {}, "warning", "sum>=warning"],
    ["sum 25", { bot: 25 }, 0, {}, "bad", "sum>=bad"],
    ["sum 25 spread over the counters", { bot: 5, probe: 5, rate: 5, attack: 5, crawler: 5 }, 0, {}, "bad", "sum>=bad"],
    ["sum 100,000", { rate: 100_000 }, 0, {}, "bad", "sum>=bad"],
    ["confirmed bad with no reports", {}, 0, { confirmedBad: true }, "bad", "confirmed-bad"],
    ["confirmed bad on a hosting network", {}, KIND.hosting, { confirmedBad: true }, "bad", "confirmed-bad"],
  ]);
});

describe("warning: sum ≥ 10, or attack ≥ 3", () => {
  check([
    ["sum 9", { probe: 9 }, 0, {}, "suspicious", "sum>=suspicious"],
    ["sum 10", { probe: 10 }, 0, {}, "warning", "sum>=warning"],
    ["sum 24", { probe: 20, bot: 4 }, 0, {}, "warning", "sum>=warning"],
    ["attack 2", { attack: 2 }, 0, {}, "informative", "sum>=informative"],
    ["attack 3", { attack: 3 }, 0, {}, "warning", "attack>=warning"],
    ["hosting with 12 reports follows the reports", { probe: 12 }, KIND.hosting, {}, "warning", "sum>=warning"],
  ]);
});

describe("suspicious: sum ≥ 3, or kind scanner", () => {
  check([
    ["sum 2", { bot: 2 }, 0, {}, "informative", "sum>=informative"],
    ["sum 3", { bot: 3 }, 0, {}, "suspicious", "sum>=suspicious"],
    ["sum 9", { bot: 4, crawler: 5 }, 0, {}, "suspicious", "sum>=suspicious"],
    ["scanner with no reports", {}, KIND.scanner, {}, "suspicious", "kind-scanner"],
    ["scanner with one report", { probe: 1 }, KIND.scanner, {}, "suspicious", "kind-scanner"],
  ]);
});

describe("informative: sum ≥ 1, or kind vpn/hosting with no reports", () => {
  check([
    ["sum 1", { rate: 1 }, 0, {}, "informative", "sum>=informative"],
    ["sum 2", { rate: 1, crawler: 1 }, 0, {}, "informative", "sum>=informative"],
    ["vpn with no reports", {}, KIND.vpn, {}, "informative", "kind-vpn-or-hosting"],
    ["hosting with no reports", {}, KIND.hosting, {}, "informative", "kind-vpn-or-hosting"],
    ["hosting with one report", { bot: 1 }, KIND.hosting, {}, "informative", "sum>=informative"],
    ["vpn with three reports", { bot: 3 }, KIND.vpn, {}, "suspicious", "sum>=suspicious"],
  ]);
});

describe("ok: nothing of the above", () => {
  check([
    ["no reports, no kinds", {}, 0, {}, "ok", "nothing"],
    ["an ISP", {}, KIND.isp, {}, "ok", "nothing"],
    ["a university on a dynamic range", {}, KIND.education | KIND.dynamic, {}, "ok", "nothing"],
    ["a crawler network", {}, KIND.crawler, {}, "ok", "nothing"],
  ]);
});

describe("a verified crawler is never bad or warning", () => {
  check([
    ["100 bot reports", { bot: 100 }, KIND.crawler, { verifiedCrawler: true }, "suspicious", "verified-crawler-cap"],
    ["on a confirmed-malicious list", {}, KIND.crawler, { verifiedCrawler: true, confirmedBad: true }, "suspicious", "verified-crawler-cap"],
    ["attack 5", { attack: 5 }, KIND.crawler, { verifiedCrawler: true }, "suspicious", "verified-crawler-cap"],
    ["sum 4 stays suspicious", { crawler: 4 }, KIND.crawler, { verifiedCrawler: true }, "suspicious", "sum>=suspicious"],
    ["one report stays informative", { crawler: 1 }, KIND.crawler, { verifiedCrawler: true }, "informative", "sum>=informative"],
    ["on a hosting network with no reports", {}, KIND.crawler | KIND.hosting, { verifiedCrawler: true }, "informative", "kind-vpn-or-hosting"],
  ]);
});

describe("the operator's allowlist forces ok", () => {
  check([
    ["whatever the lists say", { attack: 50, bot: 50 }, KIND.scanner | KIND.vpn, { allowlisted: true, confirmedBad: true }, "ok", "allowlisted"],
    ["a verified crawler too", { bot: 3 }, KIND.crawler, { allowlisted: true, verifiedCrawler: true }, "ok", "allowlisted"],
  ]);
});

describe("thresholds are configuration", () => {
  test("the defaults are the contract's and cannot be changed in place", () => {
    expect(DEFAULT_THRESHOLDS).toEqual({ badSum: 25, warningSum: 10, warningAttack: 3, suspiciousSum: 3, informativeSum: 1 });
    expect(Object.isFrozen(DEFAULT_THRESHOLDS)).toBe(true);
  });
  test.each([
    [{ warningSum: 5 }, { bot: 5 }, "warning"],
    [{ badSum: 10 }, { bot: 10 }, "bad"],
    [{ warningAttack: 1 }, { attack: 1 }, "warning"],
    [{ suspiciousSum: 1 }, { bot: 1 }, "suspicious"],
    [{ informativeSum: 2 }, { bot: 1 }, "ok"],
  ])("%p: %p → %s", (thresholds, counters, level) => {
    expect(ruleOf({ ...ZERO, ...counters }, 0, NONE, { ...DEFAULT_THRESHOLDS, ...thresholds })).toBe(levelOf({ ...ZERO, ...counters }, 0, NONE, { ...DEFAULT_THRESHOLDS, ...thresholds }).rule);
    expect(verdict({ ...ZERO, ...counters }, 0, NONE, { ...DEFAULT_THRESHOLDS, ...thresholds }).reputation).toBe(level as never);
  });
});

describe("the reputation object", () => {
  test("the spec's keys in the spec's order; sum is the total; risky for bad and warning", () => {
    const r = verdict({ bot: 1, probe: 2, rate: 3, attack: 4, crawler: 5 }, KIND.hosting | KIND.vpn, NONE);
    expect(Object.keys(r)).toEqual(["risky", "reputation", "bot", "probe", "rate", "attack", "crawler", "sum", "kind"]);
    expect(r).toEqual({ risky: true, reputation: "warning", bot: 1, probe: 2, rate: 3, attack: 4, crawler: 5, sum: 15, kind: ["hosting", "vpn"] });
  });

  test.each([
    [{ bot: 25 }, true],
    [{ bot: 10 }, true],
    [{ bot: 3 }, false],
    [{ bot: 1 }, false],
    [{}, false],
  ])("risky for %p is %p", (counters, risky) => {
    expect(verdict({ ...ZERO, ...counters }, 0, NONE).risky).toBe(risky);
  });

  test("the clean reputation is the spec's private-address one, frozen", () => {
    expect(CLEAN_REPUTATION).toEqual({ risky: false, reputation: "ok", bot: 0, probe: 0, rate: 0, attack: 0, crawler: 0, sum: 0, kind: [] });
    expect(Object.keys(CLEAN_REPUTATION)).toEqual(Object.keys(verdict(ZERO, 0, NONE)));
    expect(Object.isFrozen(CLEAN_REPUTATION) && Object.isFrozen(CLEAN_REPUTATION.kind)).toBe(true);
    expect(verdict(ZERO, 0, NONE)).toEqual(CLEAN_REPUTATION);
  });
});
