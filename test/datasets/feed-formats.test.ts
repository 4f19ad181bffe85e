import { describe, expect, test } from "bun:test";
import { clipSpecialPurpose } from "../../src/datasets/clip-special-purpose.ts";
import { parseAddressList } from "../../src/datasets/formats/address-list.ts";
import { parsePrefixJson } from "../../src/datasets/formats/prefix-json.ts";
import { cidrsOfRange } from "../../src/ip/address-range.ts";

const cidrs = (feed: { entries: { range: Parameters<typeof cidrsOfRange>[0]; count: number }[] }) => feed.entries.flatMap((e) => cidrsOfRange(e.range).map((c) => `${c}×${e.count}`));

describe("address lists", () => {
  test("netset, Spamhaus DROP and ipsum lines", () => {
    const feed = parseAddressList(
      [
        "# FireHOL level1",
        "; Spamhaus DROP",
        "",
        "1.2.3.0/24 ; SBL123",
        "5.6.7.8",
        "77.90.185.20\t10",
        "2001:db8:1::/48 # comment",
        "  9.9.9.9  ",
        "not-an-address",
        "1.2.3.4/33",
        "8.8.8.8\t0",
      ].join("\n"),
    );
    expect(cidrs(feed)).toEqual(["1.2.3.0/24×1", "5.6.7.8/32×1", "77.90.185.20/32×10", "2001:db8:1::/48×1", "9.9.9.9/32×1"]);
    expect(feed.unreadable).toBe(3);
  });
});

describe("JSON prefix lists", () => {
  test("Google and Bing crawler files", () => {
    const feed = parsePrefixJson(JSON.stringify({ creationTime: "x", prefixes: [{ ipv4Prefix: "66.249.64.0/27" }, { ipv6Prefix: "2001:4860:4801:10::/64" }, { ipv4Prefix: "nope" }] }));
    expect(cidrs(feed)).toEqual(["66.249.64.0/27×1", "2001:4860:4801:10::/64×1"]);
    expect(feed.unreadable).toBe(1);
  });
  test("newline-delimited JSON (Spamhaus drop_v4.json)", () => {
    const feed = parsePrefixJson('{"cidr":"1.10.16.0/20","sblid":"SBL256894","rir":"apnic"}\n{"cidr":"1.19.0.0/16","sblid":"SBL434604","rir":"apnic"}\n{"type":"metadata","timestamp":1}\n');
    expect(cidrs(feed)).toEqual(["1.10.16.0/20×1", "1.19.0.0/16×1"]);
  });
  test("AWS-style objects", () => {
    expect(cidrs(parsePrefixJson(JSON.stringify({ prefixes: [{ ip_prefix: "3.5.140.0/22" }], ipv6_prefixes: [{ ipv6_prefix: "2600:1f14::/35" }] })))).toEqual([
      "3.5.140.0/22×1",
      "2600:1f14::/35×1",
    ]);
  });
  test("text that is not JSON is refused", () => {
    expect(() => parsePrefixJson("1.2.3.4\n5.6.7.8")).toThrow("neither JSON");
  });
});

describe("special-purpose space is clipped at ingest", () => {
  test("private blocks disappear, straddling ranges keep their global parts", () => {
    const { entries, clipped } = clipSpecialPurpose(parseAddressList("10.0.0.0/8\n10.0.0.0/7\n8.8.8.8\n192.168.1.1\n::1\n2001:db8::/32\n").entries);
    expect(entries.flatMap((e) => cidrsOfRange(e.range))).toEqual(["11.0.0.0/8", "8.8.8.8/32"]);
    expect(clipped).toBe(5);
  });
  test("counts stay with the clipped pieces", () => {
    const { entries } = clipSpecialPurpose(parseAddressList("100.0.0.0/8\t4\n").entries);
    expect(new Set(entries.map((e) => e.count))).toEqual(new Set([4]));
    expect(entries.flatMap((e) => cidrsOfRange(e.range))).toEqual(["100.0.0.0/10", "100.128.0.0/9"]);
  });
});
