import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import NPM_DATA_DATES from "../../src/datasets/update/npm-data-dates.json" with { type: "json" };
import { parseSources } from "../../src/datasets/update/sources.ts";
import {
  COUNTER_NAMES,
  type CounterName,
  type ReportingSource,
  countersOf,
} from "../../src/ip/verdict/report-counting.ts";

const ROOT = resolve(import.meta.dir, "../..");
const file = join(ROOT, "data/sources.json");
const sources = parseSources(readFileSync(file, "utf8"), file);

describe("the shipped data/sources.json", () => {
  test("keeps the names operators pass to --only", () => {
    const names = sources.map((s) => s.name);
    for (const name of [
      "geolite2-city-ipv4",
      "geolite2-city-ipv6",
      "whois-country",
      "maxmind-geolite2-city",
      "maxmind-geolite2-asn",
      "asn-ipv4",
      "asn-ipv6",
      "disposable-domains",
      "disposable-domains-allowlist",
      "mailchecker",
      "burner-email-providers",
      "ivolo-disposable",
      "ivolo-wildcards",
      "free-email-providers",
      "spamhaus-drop-v4",
      "spamhaus-drop-v6",
      "firehol-level1",
      "firehol-level2",
      "firehol-level3",
      "blocklist-de-ssh",
      "blocklist-de-bots",
      "blocklist-de-mail",
      "blocklist-de-apache",
      "ipsum",
      "tor-exits",
      "x4bnet-datacenter-ipv4",
      "x4bnet-datacenter-ipv6",
      "x4bnet-vpn-ipv4",
      "x4bnet-vpn-ipv6",
      "x4bnet-datacenter-asn",
      "x4bnet-vpn-asn",
      "googlebot",
      "bingbot",
    ]) {
      expect(names).toContain(name);
    }
  });

  test("declares the bundled data as npm: sources, each an installed file with a known data date", () => {
    const bundled = sources.filter((s) => s.url.startsWith("npm:"));
    expect(bundled.map((s) => s.feeds).sort()).toEqual([
      "asn",
      "asn",
      "city-ipv4",
      "city-ipv6",
      "country",
      "disposable",
      "disposable",
      "disposable",
      "disposable",
      "disposable-wildcard",
      "free",
      "free",
    ]);
    for (const source of bundled) {
      const path = source.url.slice(4);
      const name = path.startsWith("@") ? path.split("/", 2).join("/") : path.split("/", 1)[0];
      expect(existsSync(join(ROOT, "node_modules", path))).toBe(true);
      const version = JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")).version;
      // Upgrading a package means recording its data's date in src/datasets/update/npm-data-dates.json.
      expect(Object.keys(NPM_DATA_DATES)).toContain(`${name}@${version}`);
    }
  });

  test("every download of a dataset the packages also bring supersedes the bundled copy", () => {
    const supersedes = Object.fromEntries(sources.map((s) => [s.name, s.supersedes]));
    expect(supersedes["geolite2-city-ipv4"]).toEqual(["bundled-geolite2-city-ipv4"]);
    expect(supersedes["asn-ipv6"]).toEqual(["bundled-asn-ipv6"]);
    expect(supersedes["free-email-providers"]).toEqual(["bundled-free-email-providers"]);
    expect(supersedes["disposable-domains"]).toEqual(["bundled-disposable-domains"]);
    expect(supersedes.fakefilter).toEqual(["bundled-fakefilter"]);
    expect(supersedes["popular-email-providers"]).toEqual(["bundled-popular-email-providers"]);
    // The bundled copy of Castle is its history, which the live top 1,000 does not replace.
    expect(supersedes.castle).toEqual([]);
    // Different lists add to each other: only a newer copy of the same list replaces one.
    for (const name of ["mailchecker", "burner-email-providers", "disposable-domains-allowlist"])
      expect(supersedes[name]).toEqual([]);
  });

  test("names every list of benign infrastructure by class, and reads Google's crawler files at their current address", () => {
    const benign = sources.filter(
      (s) => ["verified-crawler", "relay", "anycast"].includes(s.feeds) || s.class !== null,
    );
    expect(benign.length).toBeGreaterThanOrEqual(20);
    for (const source of benign) expect(source.class).toMatch(/^(seo|cloud|cdn|relay):[a-z0-9-]+$/);
    const google = sources.filter((s) => s.url.includes("developers.google.com"));
    expect(google.map((s) => s.url.split("/").at(-1)).sort()).toEqual([
      "common-crawlers.json",
      "special-crawlers.json",
      "user-triggered-fetchers-google.json",
      "user-triggered-fetchers.json",
    ]);
    for (const source of google)
      expect(source.url).toStartWith("https://developers.google.com/static/crawling/ipranges/");
    // App Engine apps of anyone fetch from user-triggered-fetchers.json's ranges: a label, never a cap.
    expect(sources.find((s) => s.url.endsWith("/user-triggered-fetchers.json"))?.feeds).toBe("hosting");
    expect(sources.find((s) => s.name === "icloud-private-relay")).toMatchObject({
      format: "geofeed-csv",
      feeds: "relay",
      class: "relay:icloud",
    });
  });

  test("a class belongs to an IP list, in category:name form", () => {
    const one = (extra: object) =>
      JSON.stringify({ sources: [{ name: "x", url: "https://example.org/x", licence: "t", ...extra }] });
    expect(() => parseSources(one({ format: "domain-list", feeds: "disposable", class: "seo:x" }), "s.json")).toThrow(
      "sources[0].class: only IP lists name a class of infrastructure",
    );
    expect(() =>
      parseSources(one({ format: "prefix-json", feeds: "verified-crawler", class: "Googlebot" }), "s.json"),
    ).toThrow('sources[0].class: a benign class such as "seo:googlebot"');
    expect(
      parseSources(one({ format: "aws-ip-ranges", feeds: "hosting", class: "cloud:aws" }), "s.json")[0].class,
    ).toBe("cloud:aws");
    expect(() => parseSources(one({ format: "geofeed-csv", feeds: "hosting" }), "s.json")).toThrow(
      "sources[0].feeds: for format geofeed-csv, one of relay",
    );
  });

  describe("its reputation lists declare what they aggregate, so one report counts once", () => {
    const reporting = new Map<string, ReportingSource>(
      sources
        .filter((s) => (COUNTER_NAMES as readonly string[]).includes(s.feeds))
        .map((s) => [s.name, { category: s.feeds as CounterName, weight: s.weight, includes: s.includes }]),
    );
    const sumOf = (listings: [string, number][]) =>
      Object.values(
        countersOf(
          listings.map(([source, count]) => ({ source, count })),
          reporting,
        ),
      ).reduce((a, b) => a + b, 0);

    test.each([
      // DShield's top attacking /24s are in all three FireHOL levels (dshield, dshield_1d, dshield_30d): one report.
      [
        "a DShield /24 on FireHOL levels 1, 2 and 3",
        [
          ["firehol-level1", 1],
          ["firehol-level2", 1],
          ["firehol-level3", 1],
        ],
        1,
      ],
      [
        "the same with one ipsum list",
        [
          ["firehol-level1", 1],
          ["firehol-level2", 1],
          ["firehol-level3", 1],
          ["ipsum", 1],
        ],
        1,
      ],
      [
        "blocklist.de ssh, FireHOL level 2 built from it, and 4 ipsum lists",
        [
          ["blocklist-de-ssh", 1],
          ["firehol-level2", 1],
          ["ipsum", 4],
        ],
        4,
      ],
      [
        "FireHOL level 2 and level 3 from different lists, ipsum counting both",
        [
          ["firehol-level2", 1],
          ["firehol-level3", 1],
          ["ipsum", 2],
        ],
        2,
      ],
      ["ipsum alone", [["ipsum", 10]], 10],
    ] as [string, [string, number][], number][])("%s: %p reports", (_, listings, reports) => {
      expect(sumOf(listings)).toBe(reports);
    });
  });

  test("its disposable lists declare which verify their entries and which copy others", () => {
    const disposable = sources.filter((s) => s.feeds === "disposable" || s.feeds === "disposable-wildcard");
    const declared = Object.fromEntries(
      disposable.map((s) => [s.name, { verifies: s.verifies, includes: s.includes }]),
    );
    expect(declared["disposable-domains"]).toEqual({ verifies: true, includes: [] });
    expect(declared["bundled-disposable-domains"]).toEqual({ verifies: true, includes: [] });
    expect(declared["burner-email-providers"]).toEqual({ verifies: false, includes: ["mailchecker"] });
    // Castle checks each domain against a real throwaway-mail service (docs/email.md); its bundled history copies it.
    expect(declared.castle).toEqual({ verifies: true, includes: [] });
    expect(declared["bundled-castle"]).toEqual({ verifies: true, includes: ["castle"] });
    expect(declared.fakefilter).toEqual({ verifies: false, includes: [] });
    for (const s of disposable)
      for (const copied of s.includes) expect(disposable.map((d) => d.name)).toContain(copied);
  });

  test("Castle's lists are rolling top lists, remembered a year; every other list is a full list", () => {
    const rolling = sources.filter((s) => s.kind === "rolling");
    expect(rolling.map((s) => s.name).sort()).toEqual(["bundled-castle", "castle"]);
    for (const s of rolling) expect(s.retentionMs).toBe(365 * 86_400_000);
    expect(sources.find((s) => s.name === "castle")!.cadenceMs).toBe(86_400_000);
  });
});

describe("a sources file's email declarations", () => {
  const parse = (extra: object) => () =>
    parseSources(
      JSON.stringify({
        sources: [{ name: "a", url: "https://example.org/a", format: "domain-list", licence: "test", ...extra }],
      }),
      "s.json",
    );
  test("verifies and includes are taken on disposable lists", () => {
    expect(parse({ feeds: "disposable", verifies: true })()[0]).toMatchObject({ verifies: true, includes: [] });
    expect(parse({ feeds: "disposable", includes: ["b"] })()[0]).toMatchObject({ verifies: false, includes: ["b"] });
  });
  test("a rolling list takes its retention, a year unless it says", () => {
    expect(parse({ feeds: "disposable", kind: "rolling", retention: "90d" })()[0]).toMatchObject({
      kind: "rolling",
      retentionMs: 90 * 86_400_000,
    });
    expect(parse({ feeds: "disposable" })()[0]).toMatchObject({ kind: "full" });
  });
  test.each([
    [{ feeds: "free", verifies: true }, /verifies: applies to disposable-domain lists/],
    [{ feeds: "disposable", verifies: "yes" }, /verifies: true or false/],
    [{ feeds: "free", includes: ["b"] }, /includes applies to lists that feed a counter .* or disposable domains/],
    [{ feeds: "disposable", weight: 2 }, /weight applies to lists that feed a counter/],
    [{ feeds: "disposable", kind: "top" }, /kind: one of full, rolling/],
    [{ feeds: "disposable", popular: true }, /popular: applies to free-provider lists/],
    [{ feeds: "free", kind: "rolling" }, /kind: only disposable-domain lists are rolling/],
    [{ feeds: "disposable", kind: "rolling", retention: "a year" }, /retention: how long a name is remembered/],
    [{ feeds: "disposable", retention: "90d" }, /retention: applies to rolling lists/],
  ])("%j is refused", (extra, message) => {
    expect(parse(extra)).toThrow(message);
  });
});
