import { describe, expect, test } from "bun:test";
import { answerJson, privateAnswerJson } from "../../../src/ip/answer/answer-json.ts";
import { UNKNOWN_LOCATION } from "../../../src/ip/geo/geo-record.ts";
import { answerObject, ipFacts, privateAnswer } from "../../../src/ip/answer/intelligence.ts";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { CLEAN_REPUTATION } from "../../../src/ip/verdict/reputation.ts";
import { isGlobalUnicast } from "../../../src/ip/address/special-purpose.ts";
import { bundledIpDatasets } from "../../support/test-app.ts";

const datasets = await bundledIpDatasets();

function randomGlobal(n: number): string[] {
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out: string[] = [];
  while (out.length < n) {
    const text =
      out.length % 4 === 3
        ? Array.from({ length: 8 }, (_, i) => Math.floor(next() * 0x10000).toString(16)).map((g, i) => (i === 0 ? (0x2000 + Math.floor(next() * 0x1000)).toString(16) : g)).join(":")
        : Array.from({ length: 4 }, () => Math.floor(next() * 256)).join(".");
    const ip = parseIpAddress(text);
    if (ip && isGlobalUnicast(ip)) out.push(text);
  }
  return out;
}

describe("the cached JSON is exactly JSON.stringify of the answer", () => {
  test("over 5,000 addresses, twice (cold and warm caches)", () => {
    for (let round = 0; round < 2; round++) {
      for (const text of randomGlobal(5000)) {
        const facts = ipFacts(datasets, parseIpAddress(text)!);
        const json = answerJson(facts);
        if (json !== JSON.stringify(answerObject(facts))) expect(json).toBe(JSON.stringify(answerObject(facts)));
      }
    }
  });

  test("names with quotes, backslashes and non-ASCII survive", () => {
    const facts = {
      ...ipFacts(datasets, parseIpAddress("8.8.8.8")!),
      geo: { country: "Côte d'Ivoire", country_code: "CI", region: "", region_name: 'Abidjan "AB"', city: "Yamoussoukro\\", subdivisions: "", zip: "", latitude: 6.8, longitude: -5.27, timezone: "Africa/Abidjan" },
      owner: { asn: 201907, isp: 'LLC "SPUTNIK"', organization: 'LLC "SPUTNIK"' },
      reputation: CLEAN_REPUTATION,
    };
    const json = answerJson(facts);
    expect(json).toBe(JSON.stringify(answerObject(facts)));
    expect(JSON.parse(json).asn).toBe('AS201907 LLC "SPUTNIK"');
  });

  test("an address without geolocation or owner", () => {
    const facts = { ...ipFacts(datasets, parseIpAddress("8.8.8.8")!), geo: UNKNOWN_LOCATION, owner: { asn: 0, isp: "", organization: "" } };
    expect(answerJson(facts)).toBe(JSON.stringify(answerObject(facts)));
  });
});

test("the private-address JSON is exactly JSON.stringify of the private answer", () => {
  for (const text of ["10.0.0.1", "192.168.1.254", "fd00::1", "::1", "100.64.0.0"]) {
    const ip = parseIpAddress(text)!;
    expect(privateAnswerJson(ip.text)).toBe(JSON.stringify(privateAnswer(ip.text)));
  }
  expect(JSON.parse(privateAnswerJson("10.0.0.1"))).toMatchObject({ ip: "10.0.0.1", country: "", is_anycast: false, reputation: { risky: false } });
});
