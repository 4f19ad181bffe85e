import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAsnCsv } from "../../src/datasets/asn-csv.ts";
import { AsnIndex, compileAsnIndex } from "../../src/ip/asn-index.ts";
import { parseCidr } from "../../src/ip/cidr.ts";
import { parseIpAddress } from "../../src/ip/parse.ts";
import { RangeIndexBuilder } from "../../src/ip/range-index-builder.ts";
import { decodeIndexFile, encodeIndexFile, readIndexFile } from "../../src/ip/range-index-file.ts";
import { NOT_FOUND, RangeIndex } from "../../src/ip/range-index.ts";
import { FLAG, ReputationIndex, ReputationIndexBuilder } from "../../src/ip/reputation-index.ts";
import { BUNDLED_DATA_DIR } from "../support/test-app.ts";

const ip = (s: string) => parseIpAddress(s)!;
const bundled = new AsnIndex(await readIndexFile(join(BUNDLED_DATA_DIR, "current/ip/asn.idx"), "asn"));

/** Builds a set-valued index: each stretch gets the sorted labels covering it. */
function labelled(entries: [string, string][]) {
  const builder = new RangeIndexBuilder<string>();
  for (const [cidr, label] of entries) builder.addCidr(parseCidr(cidr)!, label);
  const labels: string[] = [];
  const index = new RangeIndex(
    builder.build(
      (ls) => [...new Set(ls)].sort().join("+"),
      (l) => (labels.includes(l) ? labels.indexOf(l) : labels.push(l) - 1),
    ),
  );
  return { index, at: (a: string) => (index.lookup(ip(a)) === NOT_FOUND ? null : labels[index.lookup(ip(a))]) };
}

describe("builder: overlaps merge, neighbours coalesce", () => {
  test("nested ranges", () => {
    const { at, index } = labelled([["10.0.0.0/8", "a"], ["10.1.0.0/16", "b"]]);
    expect([at("9.255.255.255"), at("10.0.0.0"), at("10.0.255.255"), at("10.1.0.0"), at("10.1.255.255"), at("10.2.0.0"), at("10.255.255.255"), at("11.0.0.0")]).toEqual([
      null, "a", "a", "a+b", "a+b", "a", "a", null,
    ]);
    expect(index.columns.v4Values.length).toBe(3);
  });
  test("partial overlap of start–end ranges", () => {
    const builder = new RangeIndexBuilder<number>();
    builder.add(4, 10n, 20n, 1);
    builder.add(4, 15n, 30n, 2);
    const c = builder.build((xs) => xs.reduce((a, b) => a + b, 0), (x) => x);
    expect([...c.v4Starts, ...c.v4Ends, ...c.v4Values]).toEqual([10, 15, 21, 14, 20, 30, 1, 3, 2]);
  });
  test("adjacent ranges with the same payload become one", () => {
    const { index } = labelled([["10.0.0.0/25", "a"], ["10.0.0.128/25", "a"], ["10.0.1.0/24", "b"]]);
    expect(index.columns.v4Values.length).toBe(2);
  });
  test("the whole IPv4 space and its edges", () => {
    const { at } = labelled([["0.0.0.0/0", "all"], ["255.255.255.255/32", "top"]]);
    expect([at("0.0.0.0"), at("255.255.255.254"), at("255.255.255.255")]).toEqual(["all", "all", "all+top"]);
  });
  test("IPv6 across the 64-bit halves", () => {
    const { at } = labelled([["2001:db8::/32", "doc"], ["2001:db8:0:0:8000::/65", "upper"], ["::/0", "all"]]);
    expect([at("2001:db8::1"), at("2001:db8::8000:0:0:1"), at("2001:db8::7fff:ffff:ffff:ffff"), at("2001:db9::"), at("::")]).toEqual([
      "all+doc", "all+doc+upper", "all+doc", "all", "all",
    ]);
  });
  test("bad ranges are refused", () => {
    const builder = new RangeIndexBuilder<number>();
    expect(() => builder.add(4, 5n, 4n, 0)).toThrow();
    expect(() => builder.add(4, 0n, 1n << 32n, 0)).toThrow();
  });
});

describe("lookups at edges and in gaps", () => {
  const { at } = labelled([["1.0.0.0/24", "x"], ["1.0.2.0/24", "y"], ["2001:db8::/48", "z"]]);
  test.each([
    ["0.255.255.255", null],
    ["1.0.0.0", "x"],
    ["1.0.0.255", "x"],
    ["1.0.1.0", null],
    ["1.0.2.0", "y"],
    ["1.0.2.255", "y"],
    ["1.0.3.0", null],
    ["2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", null],
    ["2001:db8::", "z"],
    ["2001:db8:0:ffff:ffff:ffff:ffff:ffff", "z"],
    ["2001:db8:1::", null],
  ])("%s → %p", (a, expected) => {
    expect(at(a)).toBe(expected);
  });
  test("an empty index finds nothing", () => {
    expect(labelled([]).at("8.8.8.8")).toBeNull();
  });
});

describe("index files", () => {
  const reputation = () => {
    const b = new ReputationIndexBuilder();
    b.addCidr(parseCidr("192.0.2.0/24")!, { source: "list-a", counters: { attack: 2 } });
    b.addCidr(parseCidr("192.0.2.128/25")!, { source: "list-b", counters: { attack: 1, bot: 4 }, flags: FLAG.confirmedBad });
    b.addCidr(parseCidr("2001:db8::/32")!, { source: "list-c", flags: 1 });
    return b.build({ built: "2026-11-23" });
  };

  test("round-trip with counters summed, flags combined and sources kept", () => {
    const file = decodeIndexFile(encodeIndexFile(reputation()).slice().buffer, "x.idx", "reputation");
    const index = new ReputationIndex(file);
    const low = index.entryOf(ip("192.0.2.1"));
    const high = index.entryOf(ip("192.0.2.200"));
    expect([index.counter(low, 3), index.counter(high, 3), index.counter(high, 0)]).toEqual([2, 3, 4]);
    expect(index.flags(high) & FLAG.confirmedBad).toBeTruthy();
    expect(index.sources(high)).toEqual(["list-a", "list-b"]);
    expect(index.flags(index.entryOf(ip("2001:db8::5")))).toBe(1);
    expect(index.entryOf(ip("8.8.8.8"))).toBe(NOT_FOUND);
    expect(file.meta.built).toBe("2026-11-23");
  });

  test.each([
    ["empty", new Uint8Array(0)],
    ["wrong magic", new Uint8Array(200).fill(7)],
    ["truncated", encodeIndexFile(reputation()).slice(0, 120)],
  ])("%s files are refused, naming the file", async (_, bytes) => {
    const path = join(mkdtempSync(join(tmpdir(), "rk-idx-")), "reputation.idx");
    writeFileSync(path, bytes);
    expect(readIndexFile(path, "reputation")).rejects.toThrow(`${path}: corrupt index`);
  });

  test("a file of the wrong kind is refused", () => {
    expect(() => decodeIndexFile(encodeIndexFile(reputation()).slice().buffer, "asn.idx", "asn")).toThrow("asn.idx: corrupt index (holds reputation, expected asn)");
  });

  test("a missing file names itself", async () => {
    expect(readIndexFile("/nonexistent/asn.idx", "asn")).rejects.toThrow('/nonexistent/asn.idx: missing; run "npm install"');
  });
});

describe("ASN data", () => {
  test("CSV with quoted organisations", () => {
    const rows = [...parseAsnCsv('16777216,16777471,13335,"Cloudflare, Inc."\n35309568,35313663,201907,"LLC ""SPUTNIK"""\r\n1,2,3,Plain Org\n', "t.csv")];
    expect(rows.map((r) => r.organization)).toEqual(["Cloudflare, Inc.", 'LLC "SPUTNIK"', "Plain Org"]);
    expect(rows[0]).toMatchObject({ start: 16777216n, end: 16777471n, asn: 13335 });
  });
  test.each(["a,b,c,d", "1,2,3", '1,2,3,"unterminated'])("malformed row %p names its line", (row) => {
    expect(() => [...parseAsnCsv(`1,2,3,ok\n${row}\n`, "t.csv")]).toThrow("t.csv:2:");
  });
  test("compiled index deduplicates organisations", () => {
    const file = compileAsnIndex(
      [
        { version: 4, start: 0n, end: 9n, asn: 1, organization: "One" },
        { version: 4, start: 20n, end: 29n, asn: 1, organization: "One" },
        { version: 6, start: 0n, end: 1n << 64n, asn: 2, organization: "Two" },
      ],
      {},
    );
    const index = new AsnIndex(decodeIndexFile(encodeIndexFile(file).slice().buffer, "a.idx", "asn"));
    expect(index.entryCount).toBe(2);
    expect(index.entryOf({ version: 4, text: "", v4: 25 })).toBe(index.entryOf({ version: 4, text: "", v4: 5 }));
  });

  test.each([
    ["8.8.8.8", 15169, "Google LLC"],
    ["1.1.1.1", 13335, "Cloudflare, Inc."],
    ["2001:4860:4860::8888", 15169, "Google LLC"],
  ])("bundled: %s → AS%d %s", (a, asn, org) => {
    const entry = bundled.entryOf(ip(a));
    expect([bundled.asn(entry), bundled.organization(entry)]).toEqual([asn, org]);
  });
});
