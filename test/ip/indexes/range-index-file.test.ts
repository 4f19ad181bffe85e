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
import type { RangeColumns } from "../../../src/ip/indexes/range-index.ts";

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
