import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { clipSpecialPurpose } from "../../src/datasets/update/clip-special-purpose.ts";
import { parseAddressList } from "../../src/datasets/update/formats/address-list.ts";
import { parseAsnCsv } from "../../src/datasets/update/formats/asn-csv.ts";
import { parseAsnListFeed } from "../../src/datasets/update/formats/asn-list.ts";
import { parseDomainList } from "../../src/datasets/update/formats/domain-list.ts";
import type { FeedEntry } from "../../src/datasets/update/formats/feed-entry.ts";
import { parseMmdbSource } from "../../src/datasets/update/formats/mmdb.ts";
import { FORMATS, FORMAT_NAMES, IP_FORMATS } from "../../src/datasets/update/formats/index.ts";
import { ContentError } from "../../src/datasets/update/formats/parsed-source.ts";
import { OUTPUTS, OUTPUT_NAMES } from "../../src/datasets/update/outputs.ts";
import { parsePrefixJson } from "../../src/datasets/update/formats/prefix-json.ts";
import { cidrsOfRange } from "../../src/ip/address/address-range.ts";
import { BUNDLED_DATA_DIR } from "../support/bundled-data.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const cidrs = (entries: readonly FeedEntry[]) =>
  entries.flatMap((e) => cidrsOfRange(e.range).map((c) => `${c}×${e.count}`));

/** What sites serve in place of a list: a JavaScript wall, an error page, a login form. */
const ERROR_PAGES = [
  `<!DOCTYPE html>\n<html><head><title>Just a moment...</title></head><body>${"<p>please enable JavaScript</p>\n".repeat(5000)}</body></html>`,
  "<html>\n<body>404 Not Found</body>\n</html>\n",
  `\n\n  <?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>`,
  `# a comment first\n<head>\n<meta charset="utf-8">\n${"example.com\n".repeat(10)}`,
];

describe("every format refuses an HTML or error page, for whatever it feeds", () => {
  for (const format of FORMAT_NAMES) {
    test(format, () => {
      for (const feeds of FORMATS[format].targets) {
        for (const page of ERROR_PAGES) expect(() => FORMATS[format].parse(bytes(page), feeds)).toThrow(ContentError);
        // The one binary format says what it is not; the text formats say what the page is.
        expect(() => FORMATS[format].parse(bytes(ERROR_PAGES[0]), feeds)).toThrow(
          format === "mmdb" ? "not a valid MaxMind DB file" : "looks like an HTML page",
        );
      }
    });
  }
});

describe("every format describes itself whole", () => {
  test.each(FORMAT_NAMES.map((f) => [f]))("%s: a ceiling, and each of its targets feeds an output", (format) => {
    const descriptor = FORMATS[format];
    expect(descriptor.name).toBe(format);
    expect(descriptor.maxBytes).toBeGreaterThanOrEqual(1_048_576);
    expect(descriptor.targets.length).toBeGreaterThan(0);
    for (const feeds of descriptor.targets) {
      expect([feeds, OUTPUT_NAMES.filter((name) => OUTPUTS[name].fedBy(format, feeds)).length > 0]).toEqual([
        feeds,
        true,
      ]);
    }
    // A format whose entries carry labels feeds the labels, and only such a one does.
    expect(descriptor.outputs.includes("infrastructure-labels")).toBe(descriptor.labels);
    expect(IP_FORMATS.has(format)).toBe(descriptor.outputs.includes("reputation-index"));
  });
});

describe("domain lists", () => {
  test("entries are normalised like an address's domain; comments, blanks and duplicates go", () => {
    const list = parseDomainList(bytes("# head\n\nMailinator.com\n*.33mail.com\nпример.com  # IDN\nmailinator.com\n"));
    expect(list.value).toEqual(["mailinator.com", "33mail.com", "xn--e1afmkfd.com"]);
    expect(list.entries).toBe(3);
  });
  test("a JSON array of names, as npm packages ship them", () => {
    expect(parseDomainList(bytes('["a.com","B.org"]')).value).toEqual(["a.com", "b.org"]);
    expect(() => parseDomainList(bytes('["a.com", 3]'))).toThrow("expected a JSON array of domain names");
    expect(() => parseDomainList(bytes('["a.com",'))).toThrow("not JSON");
  });
  test("one stray line in a real list is tolerated, a list of something else is not", () => {
    const good = Array.from({ length: 200 }, (_, i) => `site${i}.com`);
    expect(parseDomainList(bytes([...good, "not a domain"].join("\n"))).entries).toBe(200);
    const rows = Array.from({ length: 50 }, (_, i) => `user${i}@gmail.com,2026-01-01,active`);
    expect(() => parseDomainList(bytes([...good.slice(0, 10), ...rows].join("\n")))).toThrow(
      /50 of 60 entries are not domain names/,
    );
  });
});

describe("address lists", () => {
  test("netset, Spamhaus DROP and ipsum lines, with the feed's own date", () => {
    const feed = parseAddressList(
      bytes(
        [
          "# IPsum Threat Intelligence Feed",
          "# Last update: Sat, 22 Aug 2026 03:00:29 +0200",
          "; Spamhaus DROP",
          "",
          "1.2.3.0/24 ; SBL123",
          "5.6.7.8",
          "77.90.185.20\t10",
          "2001:db8:1::/48 # comment",
          "  9.9.9.9  ",
          ...Array.from({ length: 300 }, (_, i) => `100.${i >> 8}.${i & 255}.1`),
        ].join("\n"),
      ),
    );
    expect(cidrs(feed.value).slice(0, 5)).toEqual([
      "1.2.3.0/24×1",
      "5.6.7.8/32×1",
      "77.90.185.20/32×10",
      "2001:db8:1::/48×1",
      "9.9.9.9/32×1",
    ]);
    expect(feed.entries).toBe(305);
    expect(feed.dataDate).toBe("2026-08-22T01:00:29.000Z");
  });
  test("FireHOL's and Spamhaus's header dates", () => {
    expect(parseAddressList(bytes("#\n# Source File Date: Sat Aug 22 05:13:59 UTC 2026\n#\n1.2.3.4\n")).dataDate).toBe(
      "2026-08-22T05:13:59.000Z",
    );
    expect(
      parseAddressList(bytes("; Last-Modified: Thu, 20 Aug 2026 12:53:45 GMT\n1.10.16.0/20 ; SBL256894\n")).dataDate,
    ).toBe("2026-08-20T12:53:45.000Z");
    expect(parseAddressList(bytes("1.2.3.4\n")).dataDate).toBeNull();
  });
  test("unreadable lines beyond a small share refuse the list", () => {
    expect(() => parseAddressList(bytes("1.2.3.4\nnot-an-address\n1.2.3.4/33\n8.8.8.8\t0\n"))).toThrow(
      /3 of 4 entries are not IP addresses/,
    );
  });
});

describe("JSON prefix lists", () => {
  test("Google's crawler files, with their creation time", () => {
    const feed = parsePrefixJson(
      bytes(
        JSON.stringify({
          creationTime: "2026-08-21T14:45:42.000000",
          prefixes: [{ ipv4Prefix: "66.249.64.0/27" }, { ipv6Prefix: "2001:4860:4801:10::/64" }],
        }),
      ),
    );
    expect(cidrs(feed.value)).toEqual(["66.249.64.0/27×1", "2001:4860:4801:10::/64×1"]);
    expect(feed.dataDate).toBe("2026-08-21T14:45:42.000Z");
  });
  test("newline-delimited JSON (Spamhaus drop_v4.json) dated by its metadata line", () => {
    const feed = parsePrefixJson(
      bytes(
        '{"cidr":"1.10.16.0/20","sblid":"SBL256894","rir":"apnic"}\n{"cidr":"1.19.0.0/16","sblid":"SBL434604","rir":"apnic"}\n{"type":"metadata","timestamp":1784798042}\n',
      ),
    );
    expect(cidrs(feed.value)).toEqual(["1.10.16.0/20×1", "1.19.0.0/16×1"]);
    expect(feed.dataDate).toBe("2026-07-23T09:14:02.000Z");
  });
  test("AWS-style objects", () => {
    expect(
      cidrs(
        parsePrefixJson(
          bytes(
            JSON.stringify({
              prefixes: [{ ip_prefix: "3.5.140.0/22" }],
              ipv6_prefixes: [{ ipv6_prefix: "2600:1f14::/35" }],
            }),
          ),
        ).value,
      ),
    ).toEqual(["3.5.140.0/22×1", "2600:1f14::/35×1"]);
  });
  test("text that is not JSON, or JSON of another shape, is refused", () => {
    expect(() => parsePrefixJson(bytes("1.2.3.4\n5.6.7.8"))).toThrow("neither JSON");
    expect(() => parsePrefixJson(bytes('{"message":"rate limited"}'))).toThrow("has no prefixes");
    expect(() =>
      parsePrefixJson(bytes(JSON.stringify({ prefixes: [{ ipv4Prefix: "66.249.64.0/27" }, { ipv4Prefix: "nope" }] }))),
    ).toThrow(/1 of 2 entries/);
  });
});

describe("AS number lists", () => {
  test("X4BNet's `AS<number> # comment` lines", () => {
    expect(parseAsnListFeed(bytes("AS13335 # Cloudflare\n\nas15169\n16509#Amazon\n")).value).toEqual([
      13335, 15169, 16509,
    ]);
  });
});

describe("ASN tables", () => {
  test("numeric CSV rows, the family read from the numbers", () => {
    const table = parseAsnCsv(
      bytes(
        '16777216,16777471,13335,"Cloudflare, Inc."\n42540528726795050063891204319802818560,42540528806023212578155541913346768895,15169,Google LLC\n',
      ),
    );
    expect(table.entries).toBe(2);
    expect([...table.value()].map((r) => [r.version, r.asn, r.organization])).toEqual([
      [4, 13335, "Cloudflare, Inc."],
      [6, 15169, "Google LLC"],
    ]);
  });
  test("one malformed row refuses the table, naming its line", () => {
    expect(() => parseAsnCsv(bytes("1,2,3,ok\n\n1.0.0.0,1.0.0.255,13335,x\n"))).toThrow("line 3:");
    expect(() => parseAsnCsv(bytes("5,2,3,backwards\n"))).toThrow("not an address range");
  });
});

describe("MaxMind databases", () => {
  const city = readFileSync(join(BUNDLED_DATA_DIR, "current/geo/city-ipv4.mmdb"));
  test("a sound database: its networks are its entries, its build date its date", () => {
    const parsed = parseMmdbSource(city, "city-ipv4");
    expect(parsed.entries).toBeGreaterThan(1_000_000);
    expect(parsed.dataDate).toMatch(/^20\d\d-/);
  });
  test("a database of the wrong kind for what it feeds is refused", () => {
    expect(() => parseMmdbSource(city, "asn-isp")).toThrow("answers none of the probe addresses with asn-isp data");
  });
  test("random bytes inside the data section, metadata intact, are found", () => {
    const damaged = Buffer.from(city);
    const marker = damaged.lastIndexOf(Buffer.from("\xab\xcd\xefMaxMind.com", "latin1"));
    let state = 7;
    for (let i = 0; i < 2000; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      damaged[marker - 1_000_000 + (state % 900_000)] = state >>> 24;
    }
    expect(() => parseMmdbSource(damaged, "city-ipv4")).toThrow(/damaged MaxMind DB file/);
  });
  test("a byte that turns a string into another type, still decodable, is found", () => {
    // The one copy of "California" that state1 values point at, its type byte turned from
    // string into bytes: every record still decodes, but a lookup would fail.
    const damaged = Buffer.from(city);
    const string = Buffer.from("\x4aCalifornia", "latin1");
    const at = damaged.indexOf(string);
    expect(at).toBeGreaterThan(0);
    expect(damaged.lastIndexOf(string)).toBe(at);
    damaged[at] = 0x8a;
    expect(() => parseMmdbSource(damaged, "city-ipv4")).toThrow(
      /damaged MaxMind DB file \(the record at data offset \d+ has state1 of type bytes, not string\)/,
    );
  });
  test("not a database at all", () => {
    expect(() => parseMmdbSource(bytes("<html>nope</html>"), "city")).toThrow("not a valid MaxMind DB file");
  });
});

describe("special-purpose space is clipped at ingest", () => {
  const entries = (text: string) => parseAddressList(bytes(text)).value;
  test("private blocks disappear, straddling ranges keep their global parts", () => {
    const { entries: kept, clipped } = clipSpecialPurpose(
      entries("10.0.0.0/8\n10.0.0.0/7\n8.8.8.8\n192.168.1.1\n::1\n2001:db8::/32\n"),
    );
    expect(kept.flatMap((e) => cidrsOfRange(e.range))).toEqual(["11.0.0.0/8", "8.8.8.8/32"]);
    expect(clipped).toBe(5);
  });
  test("counts stay with the clipped pieces", () => {
    const { entries: kept } = clipSpecialPurpose(entries("100.0.0.0/8\t4\n"));
    expect(new Set(kept.map((e) => e.count))).toEqual(new Set([4]));
    expect(kept.flatMap((e) => cidrsOfRange(e.range))).toEqual(["100.0.0.0/10", "100.128.0.0/9"]);
  });
});
