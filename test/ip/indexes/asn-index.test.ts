import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { asnCsvRows } from "../../../src/datasets/update/formats/asn-csv.ts";
import { AsnIndex, type AsnRange, compileAsnIndex } from "../../../src/ip/indexes/asn-index.ts";
import { type ParsedIp, parseIpAddress } from "../../../src/ip/address/parse.ts";
import { decodeIndexFile, encodeIndexFile, readIndexFile } from "../../../src/ip/indexes/range-index-file.ts";
import { NOT_FOUND } from "../../../src/ip/indexes/range-index.ts";
import { KIND, NAME_RULES, kindsInName } from "../../../src/ip/verdict/network-kinds.ts";
import { BUNDLED_DATA_DIR } from "../../support/bundled-data.ts";

/** The ASN and organisation of the address's entry, or null. */
function lookup(index: AsnIndex, address: ParsedIp): { asn: number; organization: string } | null {
  const entry = index.entryOf(address);
  return entry === NOT_FOUND ? null : { asn: index.asn(entry), organization: index.organization(entry) };
}

const ip = (s: string) => parseIpAddress(s)!;

/** Compiles CSV text the way install and update do, through the file format. */
function indexOfCsv(v4: string, v6 = ""): AsnIndex {
  const rows: AsnRange[] = [...asnCsvRows(v4), ...asnCsvRows(v6)];
  const bytes = encodeIndexFile(compileAsnIndex(rows, {}));
  return new AsnIndex(decodeIndexFile(bytes.slice().buffer, "asn.idx", "asn"));
}

describe("the ip-location-db CSV", () => {
  test.each([
    ['16777216,16777471,13335,"Cloudflare, Inc."', "Cloudflare, Inc."],
    ['35309568,35313663,201907,"LLC ""SPUTNIK"""', 'LLC "SPUTNIK"'],
    ['1,2,3,"Quote "" and, comma"', 'Quote " and, comma'],
    ["1,2,3,Plain Org", "Plain Org"],
    ["1,2,3,", ""],
    ["1,2,3,Org\r", "Org"],
  ])("%s → %p", (row, organization) => {
    expect([...asnCsvRows(`${row}\n`)][0].organization).toBe(organization);
  });

  test("numbers, 128-bit bounds and a last line without a newline", () => {
    const rows = [
      ...asnCsvRows(
        "16777216,16777471,13335,A\n42540528726795050063891204319802818560,42540528806023212578155541913346768895,15169,Google LLC",
      ),
    ];
    expect(rows.map((r) => [r.first, r.last, r.asn])).toEqual([
      [16777216n, 16777471n, 13335],
      [42540528726795050063891204319802818560n, 42540528806023212578155541913346768895n, 15169],
    ]);
  });

  test.each(["a,b,c,d", "1,2,3", '1,2,3,"unterminated', "1,2,x,Org", "-1,2,3,Org"])(
    "malformed row %p names its line",
    (row) => {
      expect(() => [...asnCsvRows(`1,2,3,ok\n\n${row}\n`)]).toThrow("line 3:");
    },
  );
});

describe("compiling", () => {
  test("each (ASN, organisation) is stored once however many ranges it has", () => {
    const index = indexOfCsv("0,9,1,One\n20,29,1,One\n30,39,1,One Renamed\n", "0,18446744073709551616,2,Two\n");
    expect(index.entryCount).toBe(3);
    expect(index.entryOf({ version: 4, text: "", v4: 25 })).toBe(index.entryOf({ version: 4, text: "", v4: 5 }));
  });

  test("neighbouring rows of the same network become one range", () => {
    expect(indexOfCsv("0,9,1,One\n10,19,1,One\n20,29,2,Two\n").rangeCount).toBe(2);
  });

  test("where rows overlap, the later row wins", () => {
    const index = indexOfCsv(
      "100,199,749,United States Department of Defense (DoD)\n150,249,721,DoD Network Information Center\n",
    );
    const asnAt = (v4: number) => lookup(index, { version: 4, text: "", v4 })?.asn;
    expect([asnAt(149), asnAt(150), asnAt(199), asnAt(249), asnAt(250)]).toEqual([749, 721, 721, 721, undefined]);
  });

  test("organisations with any characters survive the file", () => {
    const index = indexOfCsv('0,9,1,"Ünïcødé 株式会社, ""quoted"""\n');
    expect(lookup(index, { version: 4, text: "", v4: 3 })?.organization).toBe('Ünïcødé 株式会社, "quoted"');
  });
});

describe("lookups", () => {
  // 1.0.0.0/24 and 2001:4860::/32
  const index = indexOfCsv(
    '16777216,16777471,13335,"Cloudflare, Inc."\n',
    "42541956101370907050197289607612071936,42541956180599069564461627201156022271,15169,Google LLC\n",
  );

  test("an address in a network gets its ASN and organisation", () => {
    expect(lookup(index, ip("1.0.0.1"))).toEqual({ asn: 13335, organization: "Cloudflare, Inc." });
    expect(lookup(index, ip("2001:4860::1"))).toEqual({ asn: 15169, organization: "Google LLC" });
  });

  test("an address in no network gets null", () => {
    expect([lookup(index, ip("1.0.1.0")), lookup(index, ip("2001:db8::1")), index.entryOf(ip("9.9.9.9"))]).toEqual([
      null,
      null,
      NOT_FOUND,
    ]);
  });

  test("addresses of one network share its entry", () => {
    expect(index.entryOf(ip("1.0.0.200"))).toBe(index.entryOf(ip("1.0.0.1")));
    expect(index.entryOf(ip("1.0.0.1"))).not.toBe(NOT_FOUND);
  });
});

const bundled = new AsnIndex(await readIndexFile(join(BUNDLED_DATA_DIR, "current/ip/asn.idx"), "asn"));

describe("the bundled data (compiled at install)", () => {
  test.each([
    ["8.8.8.8", 15169, "Google LLC"],
    ["1.1.1.1", 13335, "Cloudflare, Inc."],
    ["9.9.9.9", 19281, "Quad9"],
    ["2001:4860:4860::8888", 15169, "Google LLC"],
    ["2606:4700:4700::1111", 13335, "Cloudflare, Inc."],
  ])("%s → AS%d %s", (address, asn, organization) => {
    expect(lookup(bundled, ip(address))).toEqual({ asn, organization });
  });

  test("hundreds of thousands of ranges", () => {
    expect(bundled.rangeCount).toBeGreaterThan(400_000);
    expect(bundled.entryCount).toBeGreaterThan(50_000);
  });
});

describe("what the organisations' names say, compiled into the index", () => {
  const csv = [
    '16777216,16777471,1,"Stanford University"',
    '16777472,16777727,2,"Comcast Cable Communications, LLC"',
    '16777728,16777983,3,"Amazon.com, Inc."',
    '16777984,16778239,4,"University Telecom Services"',
  ].join("\n");
  const expected = [KIND.education, KIND.isp, 0, KIND.education | KIND.isp];

  test("update writes each entry's name kinds, under the rules in force", () => {
    const file = compileAsnIndex([...asnCsvRows(csv)], {});
    expect((file.meta.nameKinds as { rules: number }).rules).toBe(NAME_RULES);
    expect([...new AsnIndex(file).nameKinds()]).toEqual(expected);
  });

  test("an index compiled without them, or under other rules, has its names read at load, to the same kinds", () => {
    const file = compileAsnIndex([...asnCsvRows(csv)], {});
    const { nameKinds: _, ...older } = file.meta;
    expect([...new AsnIndex({ ...file, meta: older }).nameKinds()]).toEqual(expected);
    const stale = {
      ...file.meta,
      nameKinds: { rules: NAME_RULES - 1, bytes: Buffer.from([0, 0, 0, 0]).toString("base64") },
    };
    expect([...new AsnIndex({ ...file, meta: stale }).nameKinds()]).toEqual(expected);
  });

  test("on the bundled index, the kinds are what reading every name gives", async () => {
    const file = await readIndexFile(join(BUNDLED_DATA_DIR, "current", "ip", "asn.idx"), "asn");
    const index = new AsnIndex(file);
    const read = Array.from({ length: index.entryCount }, (_, entry) => kindsInName(index.organization(entry)));
    expect([...index.nameKinds()]).toEqual(read);
    expect(read.filter((k) => k !== 0).length).toBeGreaterThan(5_000);
  });
});
