import { describe, expect, test } from "bun:test";
import { type ParsedIp, parseIpAddress } from "../../../src/ip/address/parse.ts";
import { isGlobalUnicast } from "../../../src/ip/address/special-purpose.ts";
import { explain } from "../../../src/ip/answer/explanation.ts";
import { answerJsonFrom, answerObject, ipAnswerJson, privateAnswer } from "../../../src/ip/answer/ip-answer.ts";
import { ALL_KINDS, kindNames } from "../../../src/ip/verdict/network-kinds.ts";
import { isRisky } from "../../../src/ip/verdict/reputation.ts";
import { LEVELS } from "../../../src/ip/verdict/reputation-schema.ts";
import { type IpDatasets, ipFacts } from "../../../src/ip/answer/ip-facts.ts";
import { NOT_LOCATED, located } from "../../../src/ip/geo/geo-record.ts";
import { NOT_FOUND } from "../../../src/ip/indexes/range-index.ts";
import { bundledIpDatasets } from "../../support/test-app.ts";

const datasets = await bundledIpDatasets();

function randomGlobal(n: number): ParsedIp[] {
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out: ParsedIp[] = [];
  while (out.length < n) {
    const text =
      out.length % 4 === 3
        ? Array.from({ length: 8 }, (_, i) =>
            (i === 0 ? 0x2000 + Math.floor(next() * 0x1000) : Math.floor(next() * 0x10000)).toString(16),
          ).join(":")
        : Array.from({ length: 4 }, () => Math.floor(next() * 256)).join(".");
    const ip = parseIpAddress(text);
    if (ip && isGlobalUnicast(ip)) out.push(ip);
  }
  return out;
}

/** What the answer must be: the spec's object, stringified. */
const expected = (d: IpDatasets, ip: ParsedIp) => JSON.stringify(answerObject(ipFacts(d, ip)));

describe("the written JSON is exactly JSON.stringify of the answer object", () => {
  test("over 5,000 addresses, twice (records first seen, then kept)", () => {
    for (let round = 0; round < 2; round++) {
      for (const ip of randomGlobal(5000)) {
        const json = ipAnswerJson(datasets, ip, null);
        if (json !== expected(datasets, ip)) expect(json).toBe(expected(datasets, ip));
      }
    }
  });

  test("names with quotes, backslashes and non-ASCII survive, and an ISP apart from the organisation", () => {
    const geo = {
      country: "Côte d'Ivoire",
      country_code: "CI",
      region: "",
      region_name: 'Abidjan "AB"',
      city: "Yamoussoukro\\",
      subdivisions: "",
      zip: "",
      latitude: 6.8,
      longitude: -5.27,
      timezone: "Africa/Abidjan",
    };
    const odd: IpDatasets = {
      ...datasets,
      geo: { lookup: () => located(geo) },
      ownerLookup: () => ({ asn: 201907, isp: "Internet \u2028Provider", organization: 'LLC "SPUTNIK"' }),
    };
    const ip = parseIpAddress("8.8.8.8")!;
    const json = ipAnswerJson(odd, ip, null);
    expect(json).toBe(expected(odd, ip));
    expect(JSON.parse(json)).toMatchObject({
      asn: 'AS201907 LLC "SPUTNIK"',
      isp: "Internet \u2028Provider",
      city: "Yamoussoukro\\",
      flag: "🇨🇮",
    });
  });

  test("every reputation: each level and set of kinds, unreported and reported", () => {
    const ip = randomGlobal(1)[0];
    const facts = ipFacts(datasets, ip);
    const counters = [
      { bot: 0, probe: 0, rate: 0, attack: 0, crawler: 0 },
      { bot: 2, probe: 0, rate: 1, attack: 7, crawler: 0 },
      { bot: 0, probe: 0, rate: 0, attack: 0, crawler: 3 },
    ];
    let checked = 0;
    for (const level of LEVELS)
      for (let kinds = 0; kinds <= ALL_KINDS; kinds++)
        for (const c of counters) {
          const sum = c.bot + c.probe + c.rate + c.attack + c.crawler;
          const reputation = { risky: isRisky(level), reputation: level, ...c, sum, kind: kindNames(kinds) };
          const f = { ...facts, reputation };
          const json = answerJsonFrom(datasets, ip, f, null);
          if (json !== JSON.stringify(answerObject(f))) expect(json).toBe(JSON.stringify(answerObject(f)));
          checked++;
        }
    expect(checked).toBe(LEVELS.length * (ALL_KINDS + 1) * counters.length);
  });

  test("an address without geolocation or owner", () => {
    const unknown: IpDatasets = { ...datasets, geo: { lookup: () => NOT_LOCATED } };
    const ip = randomGlobal(2000).find((a) => datasets.asn.entryOf(a) === NOT_FOUND)!;
    expect(ip).toBeDefined();
    const json = ipAnswerJson(unknown, ip, null);
    expect(json).toBe(expected(unknown, ip));
    expect(JSON.parse(json)).toMatchObject({ country: "", flag: "", isp: "", asn: "", latitude: 0 });
  });

  test("with reasons, the reputation object gains them and nothing else changes", () => {
    for (const ip of randomGlobal(200)) {
      const facts = ipFacts(datasets, ip);
      const answer = {
        ...answerObject(facts),
        reputation: { ...facts.reputation, reasons: explain(datasets, facts, ip, {}) },
      };
      expect(ipAnswerJson(datasets, ip, {})).toBe(JSON.stringify(answer));
    }
  });
});

test("an address that is not global unicast gets the private answer: no flag, nothing looked up", () => {
  for (const text of ["10.0.0.1", "192.168.1.254", "fd00::1", "::1", "100.64.0.0"]) {
    const ip = parseIpAddress(text)!;
    expect(ipAnswerJson(datasets, ip, null)).toBe(JSON.stringify(privateAnswer(ip.text)));
  }
  expect(JSON.parse(ipAnswerJson(datasets, parseIpAddress("10.0.0.1")!, null))).toMatchObject({
    ip: "10.0.0.1",
    country: "",
    is_anycast: false,
    reputation: { risky: false },
  });
  expect(privateAnswer("10.0.0.1")).not.toHaveProperty("flag");
});
