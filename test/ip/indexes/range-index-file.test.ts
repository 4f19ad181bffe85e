import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type IndexFile,
  decodeIndexFile,
  encodeIndexFile,
  readIndexFile,
} from "../../../src/ip/indexes/range-index-file.ts";
import { NOT_FOUND, type RangeColumns, RangeIndex, bucketTables } from "../../../src/ip/indexes/range-index.ts";
import { indexWithoutTables } from "../../support/index-without-tables.ts";

const u32 = (...values: number[]) => Uint32Array.from(values);

/** A small ASN-kind file: two IPv4 ranges and one IPv6 range over two entries. */
function asnFile(columns: Partial<RangeColumns> = {}, payload = u32(13335, 0, 10, 15169, 10, 20)): IndexFile {
  return {
    kind: "asn",
    columns: {
      v4Starts: u32(16777216, 134744064),
      v4Ends: u32(16777471, 134744319),
      v4Values: u32(0, 1),
      v6Starts: u32(0x20014860, 0, 0, 0),
      v6Ends: u32(0x20014860, 0xffff, 0xffffffff, 0xffffffff),
      v6Values: u32(1),
      ...columns,
    },
    payload,
    text: new TextEncoder().encode("CloudflareGoogle LLC"),
    meta: { built: "2026-11-23" },
  };
}

const bytesOf = (file: IndexFile) => encodeIndexFile(file).slice().buffer;

function writeTemp(bytes: Uint8Array | ArrayBuffer): string {
  const path = join(mkdtempSync(join(tmpdir(), "rk-idx-")), "asn.idx");
  writeFileSync(path, new Uint8Array(bytes));
  return path;
}

describe("round trip", () => {
  test("columns, payload, text and meta come back as they went in", async () => {
    const path = writeTemp(bytesOf(asnFile()));
    const file = await readIndexFile(path, "asn");
    expect(file.kind).toBe("asn");
    expect([...file.columns.v4Starts, ...file.columns.v4Ends, ...file.columns.v4Values]).toEqual([
      16777216, 134744064, 16777471, 134744319, 0, 1,
    ]);
    expect([...file.columns.v6Ends]).toEqual([0x20014860, 0xffff, 0xffffffff, 0xffffffff]);
    expect([...file.payload]).toEqual([13335, 0, 10, 15169, 10, 20]);
    expect(new TextDecoder().decode(file.text)).toBe("CloudflareGoogle LLC");
    expect(file.meta).toEqual({ built: "2026-11-23" });
  });

  test("the columns are views on the file's bytes, not copies", async () => {
    const file = await readIndexFile(writeTemp(bytesOf(asnFile())), "asn");
    expect(file.columns.v4Starts.buffer).toBe(file.payload.buffer);
    expect(file.columns.v4Starts.byteOffset % 8).toBe(0);
  });

  test("an index with no ranges at all", () => {
    const empty = asnFile(
      { v4Starts: u32(), v4Ends: u32(), v4Values: u32(), v6Starts: u32(), v6Ends: u32(), v6Values: u32() },
      u32(),
    );
    expect(decodeIndexFile(bytesOf(empty), "e.idx", "asn").columns.v4Values.length).toBe(0);
  });
});

describe("a damaged file is refused with an error that names it", () => {
  const valid = () => new DataView(bytesOf(asnFile()));
  const patched = (patch: (view: DataView) => void) => {
    const view = valid();
    patch(view);
    return view.buffer as ArrayBuffer;
  };

  test.each([
    ["empty", new ArrayBuffer(0), "shorter than its header"],
    ["truncated header", bytesOf(asnFile()).slice(0, 40), "shorter than its header"],
    ["truncated sections", bytesOf(asnFile()).slice(0, 130), "out of bounds"],
    ["wrong magic", patched((v) => v.setUint32(0, 0x46445025, true)), "not a riskcheck index file"],
    [
      "text instead of an index",
      new TextEncoder().encode("start,end,asn,org\n".repeat(10)).buffer as ArrayBuffer,
      "not a riskcheck index file",
    ],
    ["a future format version", patched((v) => v.setUint32(4, 99, true)), "format version 99, expected 1"],
    ["an unknown kind", patched((v) => v.setUint32(8, 7, true)), "holds an unknown kind, expected asn"],
    ["a section past the end", patched((v) => v.setUint32(16, 1 << 20, true)), "section 0 out of bounds"],
    [
      "a misaligned section",
      patched((v) => v.setUint32(12, v.getUint32(12, true) + 2, true)),
      "section 0 out of bounds",
    ],
    ["columns of different lengths", patched((v) => v.setUint32(16, 4, true)), "IPv4 columns differ in length"],
    ["meta that is not JSON", patched((v) => v.setUint32(80, 3, true)), "JSON"],
    ["text that is not UTF-8", patched((v) => v.setUint8(v.getUint32(68, true), 0xff)), "its text is not UTF-8"],
  ] as [string, ArrayBuffer, string][])("%s", async (_, bytes, why) => {
    const path = writeTemp(bytes);
    const refusal = readIndexFile(path, "asn");
    await expect(refusal).rejects.toThrow(`${path}: corrupt index (`);
    await expect(refusal).rejects.toThrow(why);
  });

  test.each([
    [
      "ranges out of order",
      asnFile({ v4Starts: u32(134744064, 16777216), v4Ends: u32(134744319, 16777471) }),
      "IPv4 range 1 is out of order",
    ],
    ["overlapping ranges", asnFile({ v4Ends: u32(134744064, 134744319) }), "IPv4 range 1 is out of order"],
    [
      "a range that ends before it starts",
      asnFile({ v4Ends: u32(16777215, 134744319) }),
      "IPv4 range 0 is out of order",
    ],
    [
      "an IPv6 range that ends before it starts",
      asnFile({ v6Ends: u32(0x20014859, 0, 0, 0) }),
      "IPv6 range 0 is out of order",
    ],
    ["a range naming a missing entry", asnFile({ v4Values: u32(0, 2) }), "IPv4 range 1 names entry 2 of 2"],
    ["an IPv6 range naming a missing entry", asnFile({ v6Values: u32(9) }), "IPv6 range 0 names entry 9 of 2"],
    [
      "a payload that is not whole entries",
      asnFile({}, u32(13335, 0, 10, 15169)),
      "payload is not whole entries of 3 words",
    ],
  ] as [string, IndexFile, string][])("%s", (_, file, why) => {
    expect(() => decodeIndexFile(bytesOf(file), "/data/ip/asn.idx", "asn")).toThrow(
      `/data/ip/asn.idx: corrupt index (${why})`,
    );
  });

  test("a file of the other kind", () => {
    const reputation: IndexFile = { ...asnFile(), kind: "reputation", payload: new Uint32Array(14) };
    expect(() => decodeIndexFile(bytesOf(reputation), "asn.idx", "asn")).toThrow(
      "asn.idx: corrupt index (holds reputation, expected asn)",
    );
  });

  test("a missing file", async () => {
    await expect(readIndexFile("/nonexistent/asn.idx", "asn")).rejects.toThrow(
      '/nonexistent/asn.idx: missing; run "npm install"',
    );
  });
});

/** Enough ranges of each family for bucket tables: IPv4 ranges 2^21 apart, IPv6 ones in buckets of their own. */
function largeFile(): IndexFile {
  const n4 = 2000;
  const n6 = 1100;
  const v6Starts = new Uint32Array(n6 * 4);
  const v6Ends = new Uint32Array(n6 * 4);
  for (let i = 0; i < n6; i++) {
    v6Starts[i * 4] = 0x20000000 + i * 0x10000;
    v6Ends.set([0x20000000 + i * 0x10000, 0xffff, 0xffffffff, 0xffffffff], i * 4);
  }
  return asnFile({
    v4Starts: Uint32Array.from({ length: n4 }, (_, i) => i * 2 ** 21),
    v4Ends: Uint32Array.from({ length: n4 }, (_, i) => i * 2 ** 21 + 255),
    v4Values: Uint32Array.from({ length: n4 }, (_, i) => i % 2),
    v6Starts,
    v6Ends,
    v6Values: Uint32Array.from({ length: n6 }, (_, i) => i % 2),
  });
}

/** Every range's first and last address and the ones around them, through both families. */
function answers(index: RangeIndex): number[] {
  const { v4Starts, v4Ends, v6Starts } = index.columns;
  const found: number[] = [];
  for (let i = 0; i < v4Starts.length; i++)
    for (const a of [v4Starts[i] - 1, v4Starts[i], v4Ends[i], v4Ends[i] + 1]) found.push(index.lookupV4(a >>> 0));
  for (let i = 0; i < v6Starts.length / 4; i++) {
    const top = v6Starts[i * 4];
    for (const words of [
      [top - 1, 0xffffffff, 0xffffffff, 0xffffffff],
      [top, 0, 0, 0],
      [top, 0xffff, 0xffffffff, 0xffffffff],
      [top, 0x10000, 0, 0],
    ])
      found.push(index.lookupV6(Uint32Array.from(words)));
  }
  return found;
}

describe("bucket tables", () => {
  test("a large index's tables are compiled into the file and read as views of it", async () => {
    const file = await readIndexFile(writeTemp(bytesOf(largeFile())), "asn");
    const made = bucketTables(largeFile().columns);
    expect(file.columns.buckets?.v4).toEqual(made.v4!);
    expect(file.columns.buckets?.v6).toEqual(made.v6!);
    expect(file.columns.buckets?.v4?.buffer).toBe(file.payload.buffer);
  });

  test("lookups through the file's tables answer as through tables made from the ranges", () => {
    const read = decodeIndexFile(bytesOf(largeFile()), "asn.idx", "asn");
    const { buckets, ...ranges } = read.columns;
    expect(buckets).toBeDefined();
    const fromFile = answers(new RangeIndex(read.columns));
    expect(fromFile).toEqual(answers(new RangeIndex(ranges)));
    expect(fromFile.filter((v) => v !== NOT_FOUND).length).toBe(2000 * 2 + 1100 * 2);
  });

  test("a small index has none", () => {
    expect(decodeIndexFile(bytesOf(asnFile()), "asn.idx", "asn").columns.buckets).toEqual({ v4: null, v6: null });
  });

  test("an index without tables and one with them are both read and give the same answers", () => {
    const without = decodeIndexFile(indexWithoutTables(largeFile()), "asn.idx", "asn");
    const withTables = decodeIndexFile(bytesOf(largeFile()), "asn.idx", "asn");
    expect(without.columns.buckets).toBeUndefined();
    expect(withTables.columns.buckets?.v4).not.toBeNull();
    expect(without.meta).toEqual(withTables.meta);
    const found = answers(new RangeIndex(without.columns));
    expect(found).toEqual(answers(new RangeIndex(withTables.columns)));
    expect(found.filter((v) => v !== NOT_FOUND).length).toBe(2000 * 2 + 1100 * 2);
  });

  test("the file keeps format version 1 and marks its tables in its meta, so an older riskcheck reads it", () => {
    const view = new DataView(bytesOf(largeFile()));
    expect(view.getUint32(4, true)).toBe(1);
    const meta = new Uint8Array(view.buffer, view.getUint32(76, true), view.getUint32(80, true));
    expect(JSON.parse(new TextDecoder().decode(meta))).toEqual({ built: "2026-11-23", bucketTables: true });
  });

  const damaged = (patch: (view: DataView) => void) => {
    const view = new DataView(bytesOf(largeFile()));
    patch(view);
    return view.buffer as ArrayBuffer;
  };
  const v4Table = (view: DataView) => view.getUint32(84, true);

  test.each([
    [
      "a table that does not match the ranges",
      damaged((v) => v.setUint32(v4Table(v) + 100 * 4, 7, true)),
      "its IPv4 bucket table differs from its ranges at bucket 100",
    ],
    ["a table left out", damaged((v) => v.setUint32(88, 0, true)), "its IPv4 bucket table is missing"],
    ["a table cut short", damaged((v) => v.setUint32(88, 4000, true)), "its IPv4 bucket table has 1000 entries"],
    [
      "an IPv6 table of the wrong size",
      damaged((v) => v.setUint32(96, 8, true)),
      "its IPv6 bucket table has 2 entries, not 65537",
    ],
  ] as [string, ArrayBuffer, string][])("%s is refused, naming the file", (_, bytes, why) => {
    expect(() => decodeIndexFile(bytes, "/data/ip/asn.idx", "asn")).toThrow(`/data/ip/asn.idx: corrupt index (${why}`);
  });

  test("a table of the wrong size is refused in a file checked whole before too", () => {
    const cut = damaged((v) => v.setUint32(88, 4000, true));
    expect(() => decodeIndexFile(cut, "asn.idx", "asn", true)).toThrow("bucket table has 1000 entries");
  });
});
