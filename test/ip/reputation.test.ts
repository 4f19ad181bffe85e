import { describe, expect, test } from "bun:test";
import { KIND, connectionTypeOf, kindNames, kindsOfNetwork } from "../../src/ip/network-kinds.ts";
import { DEFAULT_THRESHOLDS, levelOf, verdict } from "../../src/ip/reputation.ts";

const zero = { bot: 0, probe: 0, rate: 0, attack: 0, crawler: 0 };
const none = { confirmedBad: false, verifiedCrawler: false, allowlisted: false };
const level = (counters: Partial<typeof zero>, kinds = 0, flags: Partial<typeof none> = {}) =>
  levelOf({ ...zero, ...counters }, kinds, { ...none, ...flags }, DEFAULT_THRESHOLDS);

describe("levels at every boundary", () => {
  test.each([
    [0, "ok"],
    [1, "informative"],
    [2, "informative"],
    [3, "suspicious"],
    [9, "suspicious"],
    [10, "warning"],
    [24, "warning"],
    [25, "bad"],
    [1000, "bad"],
  ] as const)("sum %d → %s", (sum, expected) => {
    expect(level({ bot: sum }).level).toBe(expected);
  });
  test.each([
    [2, "informative"],
    [3, "warning"],
  ] as const)("attack %d → %s", (attack, expected) => {
    expect(level({ attack }).level).toBe(expected);
  });
  test("confirmed bad with no reports", () => expect(level({}, 0, { confirmedBad: true })).toEqual({ level: "bad", rule: "confirmed-bad" }));
  test("scanner kind", () => expect(level({}, KIND.scanner)).toEqual({ level: "suspicious", rule: "kind-scanner" }));
  test("vpn or hosting with no reports", () => {
    expect(level({}, KIND.vpn).level).toBe("informative");
    expect(level({}, KIND.hosting).level).toBe("informative");
    expect(level({}, KIND.isp | KIND.education).level).toBe("ok");
  });
  test("hosting with reports follows the reports", () => expect(level({ probe: 12 }, KIND.hosting).level).toBe("warning"));
  test("a verified crawler is never bad or warning", () => {
    expect(level({ bot: 100 }, KIND.crawler, { verifiedCrawler: true })).toEqual({ level: "suspicious", rule: "verified-crawler-cap" });
    expect(level({ attack: 5 }, 0, { verifiedCrawler: true, confirmedBad: true }).level).toBe("suspicious");
  });
  test("the allowlist forces ok", () => expect(level({ attack: 50 }, KIND.scanner, { allowlisted: true, confirmedBad: true })).toEqual({ level: "ok", rule: "allowlisted" }));
  test("thresholds are configurable", () => {
    expect(levelOf({ ...zero, bot: 5 }, 0, none, { ...DEFAULT_THRESHOLDS, warningSum: 5 }).level).toBe("warning");
  });
});

describe("the reputation object", () => {
  test("keys in the spec's order, sum is the total, risky for bad and warning", () => {
    const r = verdict({ bot: 1, probe: 2, rate: 3, attack: 4, crawler: 5 }, KIND.hosting | KIND.vpn, none);
    expect(Object.keys(r)).toEqual(["risky", "reputation", "bot", "probe", "rate", "attack", "crawler", "sum", "kind"]);
    expect(r).toEqual({ risky: true, reputation: "warning", bot: 1, probe: 2, rate: 3, attack: 4, crawler: 5, sum: 15, kind: ["hosting", "vpn"] });
    expect(verdict(zero, 0, none)).toMatchObject({ risky: false, reputation: "ok", sum: 0, kind: [] });
    expect(verdict({ ...zero, bot: 3 }, 0, none).risky).toBe(false);
  });
});

describe("kinds", () => {
  test("bitmask to the spec's names, in the spec's order", () => {
    expect(kindNames(127)).toEqual(["hosting", "vpn", "scanner", "crawler", "isp", "education", "dynamic"]);
    expect(kindNames(KIND.dynamic | KIND.hosting)).toEqual(["hosting", "dynamic"]);
    expect(kindNames(0)).toEqual([]);
    expect(kindNames(5)).toBe(kindNames(5));
  });
  test.each([
    [0, "Princeton University", ["education"]],
    [0, "Technische Hochschule Nürnberg", ["education"]],
    [0, "Comcast Cable Communications, LLC", ["isp"]],
    [0, "Deutsche Telekom AG", ["isp"]],
    [KIND.hosting, "Amazon.com, Inc.", ["hosting"]],
    [KIND.hosting, "Vodafone Cloud Hosting", ["hosting"]],
    [0, "Google LLC", []],
  ] as [number, string, string[]][])("network %d %s", (listed, organization, expected) => {
    expect([...kindNames(kindsOfNetwork(listed, organization))] as string[]).toEqual(expected);
  });
  test.each([
    [KIND.hosting, "Corporate"],
    [KIND.vpn, "Corporate"],
    [KIND.education, "Corporate"],
    [KIND.isp, "Residential"],
    [KIND.dynamic, "Residential"],
    [0, ""],
  ])("connection type of kinds %d is %p", (kinds, type) => {
    expect(connectionTypeOf(kinds)).toBe(type);
  });
});
