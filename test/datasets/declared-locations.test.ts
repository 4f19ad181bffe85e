import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSnapshot } from "../../src/datasets/load-snapshot.ts";
import { formatIPv4, parseIpAddress } from "../../src/ip/address/parse.ts";
import { isGlobalUnicast } from "../../src/ip/address/special-purpose.ts";
import { ipAnswerJson } from "../../src/ip/answer/ip-answer.ts";
import { NOT_FOUND } from "../../src/ip/indexes/range-index.ts";
import { NO_DECLARED_LOCATIONS } from "../../src/ip/indexes/declared-location-index.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import { AWS_IP_RANGES, GOOGLE_CLOUD, ORACLE_CLOUD } from "../fixtures/infrastructure/publishers.ts";
import { BUNDLED_SOURCES, makeDataDir, runCliAsync } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// A real update in a child process, as operators run it.
setDefaultTimeout(scaled(60_000));

const feeds = mkdtempSync(join(tmpdir(), "riskcheck-locations-"));
const file = (name: string, text: string) => {
  writeFileSync(join(feeds, name), text);
  return `file://${join(feeds, name)}`;
};
/**
 * An operator's own RFC 8805 geofeed, written for this test: an office inside an AWS range
 * (narrower, so it wins), a row broader than an AWS range (which wins inside it), and rows
 * that cannot be right: an unknown country, documentation and private space.
 */
const OFFICES = `# prefix,country,region,city,postal
35.180.7.0/24,DE,DE-BE,Berlin,10115
3.5.128.0/18,US,US-NY,New York,
81.2.69.0/24,XX,,,
198.51.100.0/24,US,US-CA,San Francisco,
192.168.0.0/16,US,,,
2001:67c:2e8::/48,NL,NL-NH,Amsterdam,
185.15.56.0/24,NL,NL-NH,Amsterdam,
5.57.16.0/24,GB,GB-ENG,London,
`;
const SOURCES = [
  {
    name: "aws",
    url: file("ip-ranges.json", AWS_IP_RANGES),
    format: "aws-ip-ranges",
    feeds: "hosting",
    class: "cloud:aws",
    licence: "AWS",
  },
  {
    name: "google-cloud",
    url: file("cloud.json", GOOGLE_CLOUD),
    format: "google-cloud-ranges",
    feeds: "hosting",
    class: "cloud:gcp",
    licence: "Google",
  },
  {
    name: "oracle-cloud",
    url: file("oci.json", ORACLE_CLOUD),
    format: "oracle-cloud-ranges",
    feeds: "hosting",
    class: "cloud:oracle",
    licence: "Oracle",
  },
  { name: "offices", url: file("geofeed.csv", OFFICES), format: "geofeed-csv", feeds: "location", licence: "ours" },
];
const dataDir = makeDataDir();
writeFileSync(join(dataDir, "sources.json"), JSON.stringify({ sources: [...BUNDLED_SOURCES, ...SOURCES] }));
const run = await runCliAsync(["update", "--data-dir", dataDir]);
const { snapshot } = await loadSnapshot(dataDir, DEFAULT_THRESHOLDS);

afterAll(() => {
  rmSync(feeds, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

const answer = (ip: string, explain = false) =>
  JSON.parse(ipAnswerJson(snapshot.ip, parseIpAddress(ip)!, explain ? snapshot.sources : null));
const reasons = (ip: string) => answer(ip, true).reputation.reasons;

describe("the update with cloud lists and an operator's geofeed", () => {
  test("installs them; the geofeed's refused rows are named in the summary, and it feeds no verdict", () => {
    expect(run.code).toBe(0);
    const line = run.stdout.split("\n").find((l) => l.startsWith("offices"))!;
    expect(line).toMatch(/^offices +updated +5 /);
    expect(line).toContain(
      'refused 3 rows: line 4 (country "XX" is not an ISO 3166-1 code), line 5 (198.51.100.0/24: private or special-purpose space), line 6 (192.168.0.0/16: private or special-purpose space)',
    );
    expect(snapshot.outputs["declared-locations"].sources).toEqual(["aws", "google-cloud", "oracle-cloud", "offices"]);
    expect(snapshot.outputs["reputation-index"].sources).not.toContain("offices");
  });
});

describe("a range a provider assigns to a region is located where the region is", () => {
  test("every field from the curated region table, none mixed from the database (no zip)", () => {
    expect(answer("35.180.1.1")).toMatchObject({
      country: "France",
      country_code: "FR",
      flag: "🇫🇷",
      region: "IDF",
      region_name: "Île-de-France",
      city: "Paris",
      subdivisions: "",
      zip: "",
      latitude: 48.86,
      longitude: 2.35,
      timezone: "Europe/Paris",
    });
    expect(answer("34.35.0.1")).toMatchObject({
      country_code: "ZA",
      city: "Johannesburg",
      timezone: "Africa/Johannesburg",
    });
    expect(answer("2600:1900:8000::1")).toMatchObject({ country_code: "ZA", city: "Johannesburg" });
    expect(answer("40.233.0.1")).toMatchObject({
      country_code: "MX",
      region: "NLE",
      city: "Monterrey",
      timezone: "America/Monterrey",
    });
    expect(answer("2406:daba:f000::1")).toMatchObject({ country_code: "AU", city: "Melbourne" });
  });
  test("AWS's GLOBAL ranges (CloudFront) have no place: the database answers", () => {
    const ip = parseIpAddress("23.228.249.1")!;
    expect(snapshot.ip.locations.sourceAt(snapshot.ip.locations.entryOf(ip))).toBe("");
    expect(reasons("23.228.249.1").location_source).toBe("geolite2");
  });
  test("explain names the region, and what the database said where it named another country", () => {
    expect(reasons("35.180.1.1").location_source).toBe("aws:eu-west-3");
    expect(reasons("34.35.0.1").location_source).toBe("gcp:africa-south1");
    expect(reasons("40.233.0.1").location_source).toBe("oracle:mx-monterrey-1");
    for (const ip of ["35.180.1.1", "34.35.0.1", "40.233.0.1", "2406:daba:f000::1"]) {
      const database = snapshot.ip.geo.lookup(parseIpAddress(ip)!).geo;
      const said = reasons(ip).database_location;
      if (database.country_code === answer(ip).country_code) expect(said).toBeUndefined();
      else expect(said).toEqual({ country_code: database.country_code, region: database.region, city: database.city });
    }
  });
});

describe("an operator's geofeed sets the location of its prefixes", () => {
  test("a row for a narrower prefix than the provider's range wins: its country, region and city, nothing else", () => {
    expect(answer("35.180.7.9")).toMatchObject({
      country: "Germany",
      country_code: "DE",
      region: "BE",
      region_name: "Berlin",
      city: "Berlin",
      zip: "",
      latitude: 0,
      longitude: 0,
      timezone: "",
    });
    const why = reasons("35.180.7.9");
    expect(why.location_source).toBe("geofeed:offices");
    expect(why.database_location.country_code).not.toBe("DE");
  });
  test("a broader row gives way to the provider's narrower range inside it, and speaks for the rest", () => {
    expect(answer("3.5.141.1")).toMatchObject({ country_code: "KR", city: "Seoul" });
    expect(reasons("3.5.141.1").location_source).toBe("aws:ap-northeast-2");
    expect(answer("3.5.130.1")).toMatchObject({ country_code: "US", region: "NY", city: "New York" });
    expect(reasons("3.5.130.1").location_source).toBe("geofeed:offices");
  });
  test("a refused row locates nothing", () => {
    expect(snapshot.ip.locations.entryOf(parseIpAddress("81.2.69.142")!)).toBe(NOT_FOUND);
  });
});

describe("an address no declaration covers", () => {
  test("is answered byte for byte as without declared locations, explained or not", () => {
    const without = { ...snapshot.ip, locations: NO_DECLARED_LOCATIONS };
    let seed = 40;
    let compared = 0;
    while (compared < 2000) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const ip = parseIpAddress(formatIPv4((seed ^ (seed << 13)) >>> 0))!;
      if (!isGlobalUnicast(ip) || snapshot.ip.locations.entryOf(ip) !== NOT_FOUND) continue;
      expect(ipAnswerJson(snapshot.ip, ip, null)).toBe(ipAnswerJson(without, ip, null));
      compared++;
    }
    for (const ip of ["81.2.69.142", "8.8.8.8", "2001:4860:4860::8888"]) {
      expect(ipAnswerJson(snapshot.ip, parseIpAddress(ip)!, null)).toBe(
        ipAnswerJson(without, parseIpAddress(ip)!, null),
      );
      expect(reasons(ip).location_source).toBe("geolite2");
      expect(reasons(ip).database_location).toBeUndefined();
    }
  });
});

describe("an operator's geofeed is guarded against shrinking like every source", () => {
  test("a copy that lost most of its rows is refused, and the last good one keeps serving", async () => {
    writeFileSync(join(feeds, "geofeed.csv"), "35.180.7.0/24,DE,DE-BE,Berlin,\n");
    const again = await runCliAsync(["update", "--data-dir", dataDir]);
    expect(again.code).toBe(1);
    expect(again.stdout.split("\n").find((l) => l.startsWith("offices"))).toContain(
      "refused: shrank from 5 to 1 entries",
    );
    const { snapshot: after } = await loadSnapshot(dataDir, DEFAULT_THRESHOLDS);
    expect(JSON.parse(ipAnswerJson(after.ip, parseIpAddress("185.15.56.1")!, null))).toMatchObject({
      country_code: "NL",
      city: "Amsterdam",
    });
  });
});
