import { describe, expect, test } from "bun:test";
import { clipSpecialPurpose } from "../../src/datasets/update/clip-special-purpose.ts";
import { parseAwsIpRanges } from "../../src/datasets/update/formats/aws-ip-ranges.ts";
import { parseFastlyIpList } from "../../src/datasets/update/formats/fastly-ip-list.ts";
import type { FeedEntry } from "../../src/datasets/update/formats/feed-entry.ts";
import { parseGeofeedCsv } from "../../src/datasets/update/formats/geofeed-csv.ts";
import { parseGithubMeta } from "../../src/datasets/update/formats/github-meta.ts";
import { parseGoogleCloudRanges } from "../../src/datasets/update/formats/google-cloud-ranges.ts";
import { FORMATS } from "../../src/datasets/update/formats/index.ts";
import { parseOracleCloudRanges } from "../../src/datasets/update/formats/oracle-cloud-ranges.ts";
import { ContentError, type ParsedSource } from "../../src/datasets/update/formats/parsed-source.ts";
import { cidrsOfRange } from "../../src/ip/address/address-range.ts";
import {
  AWS_IP_RANGES,
  FASTLY_IP_LIST,
  GITHUB_META,
  GOOGLE_ACTION_NEEDED,
  GOOGLE_CLOUD,
  ICLOUD_EGRESS,
  OPENAI_GPTBOT,
  ORACLE_CLOUD,
} from "../fixtures/infrastructure/publishers.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const labelled = (entries: readonly FeedEntry[]) =>
  entries.map((e) => `${cidrsOfRange(e.range).join(" ")} ${e.label ?? ""}`.trim());

const PARSERS: [string, (b: Uint8Array) => ParsedSource<FeedEntry[]>, string][] = [
  ["aws-ip-ranges", parseAwsIpRanges, AWS_IP_RANGES],
  ["google-cloud-ranges", parseGoogleCloudRanges, GOOGLE_CLOUD],
  ["oracle-cloud-ranges", parseOracleCloudRanges, ORACLE_CLOUD],
  ["github-meta", parseGithubMeta, GITHUB_META],
  ["fastly-ip-list", parseFastlyIpList, FASTLY_IP_LIST],
  ["geofeed-csv", parseGeofeedCsv, ICLOUD_EGRESS],
];

describe("each publisher's format, read as it documents it", () => {
  test("AWS: one entry per prefix, labelled with its region and the specific services (AMAZON only when alone)", () => {
    const parsed = parseAwsIpRanges(bytes(AWS_IP_RANGES));
    expect(labelled(parsed.value)).toEqual([
      "3.5.140.0/22 AWS ap-northeast-2 S3",
      "35.180.0.0/16 AWS eu-west-3 EC2",
      "23.228.249.0/24 AWS global CLOUDFRONT",
      "2406:daba:f000::/40 AWS ap-southeast-4 AMAZON",
    ]);
    expect(parsed.dataDate).toBe("2026-08-22T21:17:05.000Z");
  });
  test("Google Cloud: service and scope", () => {
    const parsed = parseGoogleCloudRanges(bytes(GOOGLE_CLOUD));
    expect(labelled(parsed.value)).toEqual([
      "34.1.208.0/20 Google Cloud africa-south1",
      "34.35.0.0/16 Google Cloud africa-south1",
      "2600:1900:8000::/44 Google Cloud africa-south1",
    ]);
    expect(parsed.dataDate).toBe("2026-08-21T01:05:42.583Z");
  });
  test("Oracle Cloud: region and tags", () => {
    const parsed = parseOracleCloudRanges(bytes(ORACLE_CLOUD));
    expect(labelled(parsed.value)).toEqual([
      "40.233.0.0/19 Oracle Cloud mx-monterrey-1 OCI",
      "139.177.96.0/21 Oracle Cloud mx-monterrey-1 OCI",
    ]);
    expect(parsed.dataDate).toBe("2026-07-27T06:55:33.696Z");
  });
  test("GitHub meta: every list of CIDRs, a range labelled with each list naming it; keys and domains are not ranges", () => {
    const parsed = parseGithubMeta(bytes(GITHUB_META));
    expect(labelled(parsed.value)).toEqual([
      "192.30.252.0/22 GitHub hooks, web",
      "185.199.108.0/22 GitHub hooks, web",
      "140.82.121.33/32 GitHub packages",
      "4.148.0.0/16 GitHub actions",
      "4.149.0.0/18 GitHub actions",
    ]);
  });
  test("Fastly: its IPv4 and IPv6 lists", () => {
    expect(labelled(parseFastlyIpList(bytes(FASTLY_IP_LIST)).value)).toEqual([
      "151.101.0.0/16 Fastly edge",
      "199.232.0.0/16 Fastly edge",
      "2a04:4e42::/32 Fastly edge",
    ]);
  });
  test("an RFC 8805 geofeed: each range with its country, ISO 3166-2 region and city; comments skipped", () => {
    const parsed = parseGeofeedCsv(bytes(`# self-published geofeed\n${ICLOUD_EGRESS}`));
    expect(parsed.value.map((e) => [cidrsOfRange(e.range)[0], e.place])).toEqual([
      ["104.28.28.0/26", { country: "GB", region: "GB-ENG", city: "London" }],
      ["104.28.28.64/29", { country: "US", region: "US-CA", city: "Los Angeles" }],
      ["104.28.28.72/30", { country: "DE", region: "", city: "" }],
      ["2a02:26f7:b3c0:4000::/64", { country: "FR", region: "FR-IDF", city: "Paris" }],
    ]);
  });
  test("a geofeed row whose region is another country's, or whose country is not a code, is refused and named; the others are read", () => {
    const good = Array.from({ length: 150 }, (_, i) => `104.28.${i}.0/27,US,US-NY,New York,`);
    expect(parseGeofeedCsv(bytes([...good, "104.29.0.0/27,US,GB-ENG,London,"].join("\n"))).entries).toBe(150);
    const parsed = parseGeofeedCsv(
      bytes(
        [
          ...good.slice(0, 5),
          "104.29.0.0/27,United States,,,",
          "104.29.1.0/27,US,GB-ENG,,",
          "104.29.2.0/27,XX,,,",
        ].join("\n"),
      ),
    );
    expect(parsed.entries).toBe(5);
    expect(parsed.note).toBe(
      `refused 3 rows: line 6 (the country is not an ISO 3166-1 code), line 7 (the region is not an ISO 3166-2 code of the row's country), line 8 (country "XX" is not an ISO 3166-1 code)`,
    );
  });
  test("a row with host bits, an unknown subdivision or control characters in its city is refused; one without a country places nothing", () => {
    const good = Array.from({ length: 20 }, (_, i) => `104.28.${i}.0/27,US,US-NY,New York,`);
    const rows = [
      ...good,
      "8.8.8.8/16,US,,,",
      "104.29.0.0/27,DE,DE-ZZZ,Berlin,",
      "104.29.1.0/27,DE,DE-BE,Ber\u001b[2Jlin,",
      "104.29.2.0/27,DE,DE-BE,Ber\u202elin,",
      "104.29.3.0/24,,,,",
    ];
    const location = FORMATS["geofeed-csv"].parse(bytes(rows.join("\n")), "location");
    expect(location.entries).toBe(20);
    expect(location.note).toBe(
      'refused 5 rows: line 21 (host bits set: the prefix is 8.8.0.0/16), line 22 (region "DE-ZZZ" is no ISO 3166-2 subdivision of DE), line 23 (the city holds control or invisible formatting characters), line 24 (the city holds control or invisible formatting characters), line 25 (104.29.3.0/24: no country, which would blank the location the database gives it)',
    );
    const relay = parseGeofeedCsv(bytes(rows.join("\n")), "relay");
    expect(relay.entries).toBe(21);
    expect(relay.value.at(-1)).toEqual({ range: expect.anything(), count: 1 });
  });
  test("a file most of whose rows are no geofeed rows is refused whole, without repeating them", () => {
    const rows = Array.from({ length: 20 }, (_, i) => `name;${i};value`);
    expect(() => parseGeofeedCsv(bytes(["104.28.0.0/27,US,,,", ...rows].join("\n")))).toThrow(
      "20 of 21 rows are not geofeed rows",
    );
    expect(() => parseGeofeedCsv(bytes(rows.join("\n")))).toThrow("has no rows it can use (line 1 (not a prefix))");
  });
  test("rows for private space, or broader than the feed may be, are refused and named: a relay's up to /12, an operator's location feed up to /16", () => {
    const feed = bytes(
      "10.0.0.0/16,US,,,\nfd00::/64,US,,,\n104.0.0.0/12,US,,,\n198.51.100.0/24,US,,,\n2a02:2000::/20,FR,,,\n104.28.28.0/26,GB,GB-ENG,London,\n",
    );
    const relay = parseGeofeedCsv(feed, "relay");
    expect(relay.entries).toBe(2);
    expect(relay.note).toBe(
      "refused 4 rows: line 1 (10.0.0.0/16: private or special-purpose space), line 2 (fd00::/64: private or special-purpose space), line 4 (198.51.100.0/24: private or special-purpose space), line 5 (2a02:2000::/20: broader than /24)",
    );
    const location = FORMATS["geofeed-csv"].parse(feed, "location");
    expect(location.entries).toBe(1);
    expect(location.note).toContain("line 3 (104.0.0.0/12: broader than /16)");
  });
  test("the verified-crawler files keep the shape Google's parser reads", () => {
    const parsed = FORMATS["prefix-json"].parse(bytes(OPENAI_GPTBOT), "verified-crawler");
    expect(parsed.value.map((e) => cidrsOfRange(e.range)[0])).toEqual([
      "132.196.86.0/24",
      "172.182.202.0/25",
      "172.182.204.0/24",
      "74.7.244.0/25",
    ]);
    expect(parsed.dataDate).toBe("2025-10-30T11:00:00.000Z");
  });
});

describe("a file that is not what its publisher puts out is refused with a clear message", () => {
  const HTML =
    "<!DOCTYPE html>\n<html><head><title>Just a moment...</title></head><body>please enable JavaScript</body></html>";
  test.each(PARSERS)("%s: an HTML page, an empty body, a moved file", (_, parse) => {
    expect(() => parse(bytes(HTML))).toThrow("looks like an HTML page");
    expect(() => parse(bytes(""))).toThrow(ContentError);
    expect(() => parse(bytes(GOOGLE_ACTION_NEEDED))).toThrow(/has no (prefixes|lists of CIDRs|rows)/);
  });
  test("Google's 'Action needed' answer in place of a crawler file: it parses, has no prefixes, and says what that usually means", () => {
    expect(() => FORMATS["prefix-json"].parse(bytes(GOOGLE_ACTION_NEEDED), "verified-crawler")).toThrow(
      "has no prefixes, though it parses: a file its publisher moved or retired",
    );
  });
  test("no message repeats what the download said", () => {
    for (const [, parse] of PARSERS) {
      try {
        parse(bytes(GOOGLE_ACTION_NEEDED));
      } catch (err) {
        expect((err as Error).message).not.toContain("update the location");
      }
    }
  });
});

describe("lists that cap a verdict must be plausible for their publisher", () => {
  const crawler = (prefix: string) =>
    bytes(
      JSON.stringify({
        creationTime: "2026-01-01T00:00:00",
        prefixes: [{ ipv4Prefix: "66.249.66.0/27" }, { ipv4Prefix: prefix }],
      }),
    );
  test("a crawler file carrying a /8 would cap a sixteenth of the Internet: refused", () => {
    expect(() => FORMATS["prefix-json"].parse(crawler("20.0.0.0/8"), "verified-crawler")).toThrow(
      "lists a range broader than /16 (IPv4)",
    );
    expect(FORMATS["prefix-json"].parse(crawler("20.0.0.0/16"), "verified-crawler").entries).toBe(2);
    // The same file feeding a counter is a block list: no such bound.
    expect(FORMATS["prefix-json"].parse(crawler("20.0.0.0/8"), "attack").entries).toBe(2);
  });
  test("anycast edges and relay exits have their bounds too; a cloud's own lists theirs", () => {
    expect(() => FORMATS["address-list"].parse(bytes("104.16.0.0/13\n0.0.0.0/1\n"), "anycast")).toThrow(
      "broader than /12",
    );
    expect(FORMATS["address-list"].parse(bytes("104.16.0.0/13\n172.64.0.0/13\n"), "anycast").entries).toBe(2);
    expect(() => FORMATS["geofeed-csv"].parse(bytes("104.0.0.0/8,US,,,\n"), "relay")).toThrow("broader than /12");
    expect(() =>
      parseAwsIpRanges(bytes('{"prefixes":[{"ip_prefix":"0.0.0.0/0","region":"x","service":"EC2"}]}')),
    ).toThrow("broader than /8");
  });
  test("too many prefixes for the publisher: refused", () => {
    const many = {
      creationTime: "2026-01-01T00:00:00",
      prefixes: Array.from({ length: 20_001 }, (_, i) => ({ ipv4Prefix: `20.${i >> 8}.${i & 255}.0/28` })),
    };
    expect(() => FORMATS["prefix-json"].parse(bytes(JSON.stringify(many)), "verified-crawler")).toThrow(
      "has 20001 prefixes; a list of verified-crawler ranges holds 1 to 20000",
    );
  });
});

describe("no list speaks for private or reserved space", () => {
  // A geofeed refuses such rows whole, and names them (above).
  test.each(PARSERS.filter(([format]) => format !== "geofeed-csv"))(
    "%s: entries in special-purpose space are cut at ingest",
    (format, parse) => {
      const withPrivate: Record<string, string> = {
        "aws-ip-ranges":
          '{"prefixes":[{"ip_prefix":"10.0.0.0/8","region":"x","service":"EC2"},{"ip_prefix":"35.180.0.0/16","region":"eu-west-3","service":"EC2"}]}',
        "google-cloud-ranges": '{"prefixes":[{"ipv4Prefix":"192.168.0.0/16"},{"ipv4Prefix":"34.35.0.0/16"}]}',
        "oracle-cloud-ranges":
          '{"regions":[{"region":"x","cidrs":[{"cidr":"172.16.0.0/12","tags":["OCI"]},{"cidr":"40.233.0.0/19","tags":["OCI"]}]}]}',
        "github-meta": '{"hooks":["100.64.0.0/10","192.30.252.0/22"]}',
        "fastly-ip-list": '{"addresses":["127.0.0.0/8","151.101.0.0/16"],"ipv6_addresses":["fd00::/64"]}',
      };
      const { entries, clipped } = clipSpecialPurpose(parse(bytes(withPrivate[format])).value);
      expect(clipped).toBeGreaterThan(0);
      expect(entries.flatMap((e) => cidrsOfRange(e.range))).toEqual(
        expect.not.arrayContaining([
          "10.0.0.0/8",
          "192.168.0.0/16",
          "172.16.0.0/12",
          "100.64.0.0/10",
          "127.0.0.0/8",
          "10.0.0.0/16",
        ]),
      );
      expect(entries.length).toBe(1);
      expect(entries[0].label ?? entries[0].place).toBeDefined();
    },
  );
});
