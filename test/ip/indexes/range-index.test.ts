import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { parseCidr } from "../../../src/ip/address/address-range.ts";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { RangeIndexBuilder } from "../../../src/ip/indexes/range-index-builder.ts";
import { NOT_FOUND, RangeIndex } from "../../../src/ip/indexes/range-index.ts";
import { scaled } from "../../support/slowness.ts";

// Searches every range edge of the bundled indexes: seconds on a loaded two-core machine.
setDefaultTimeout(scaled(20_000));

const ip = (s: string) => parseIpAddress(s)!;

function indexOf(entries: [string, number][]): RangeIndex {
  const builder = new RangeIndexBuilder<number>();
  for (const [cidr, value] of entries) builder.add(parseCidr(cidr)!, value);
  return new RangeIndex(
    builder.build(
      (vs) => vs[vs.length - 1],
      (v) => v,
    ),
  );
}

describe("lookups at range edges and in gaps", () => {
  const index = indexOf([
    ["1.0.0.0/24", 1],
    ["1.0.2.0/24", 2],
    ["2001:db8::/48", 3],
    ["2001:db8:2::/48", 4],
  ]);
  test.each([
    ["0.0.0.0", NOT_FOUND],
    ["0.255.255.255", NOT_FOUND],
    ["1.0.0.0", 1],
    ["1.0.0.255", 1],
    ["1.0.1.0", NOT_FOUND],
    ["1.0.2.0", 2],
    ["1.0.2.255", 2],
    ["1.0.3.0", NOT_FOUND],
    ["255.255.255.255", NOT_FOUND],
    ["::", NOT_FOUND],
    ["2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", NOT_FOUND],
    ["2001:db8::", 3],
    ["2001:db8:0:ffff:ffff:ffff:ffff:ffff", 3],
    ["2001:db8:1::", NOT_FOUND],
    ["2001:db8:2::", 4],
    ["2001:db8:2:ffff:ffff:ffff:ffff:ffff", 4],
    ["ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", NOT_FOUND],
  ])("%s → %d", (address, expected) => {
    expect(index.lookup(ip(address))).toBe(expected);
  });

  test("an empty index finds nothing", () => {
    const empty = indexOf([]);
    expect([empty.lookup(ip("8.8.8.8")), empty.lookup(ip("2001:db8::1")), empty.size]).toEqual([
      NOT_FOUND,
      NOT_FOUND,
      0,
    ]);
  });

  test("lookupV4 takes the uint32, lookupV6 the four words", () => {
    expect(index.lookupV4(0x01000205)).toBe(2);
    expect(index.lookupV6(Uint32Array.of(0x20010db8, 0x00020000, 0, 1))).toBe(4);
  });
});

describe("large indexes search within the bucket of the address's top 16 bits", () => {
  // Enough ranges for the bucket table, with long ranges that reach across buckets,
  // buckets where no range starts, and ranges at both ends of the space.
  let seed = 11;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const v4: [number, number][] = [];
  for (let start = 0; start < 2 ** 32 && v4.length < 5000; ) {
    const length = random(10) === 0 ? random(2 ** 22) : random(4096);
    v4.push([start, Math.min(start + length, 2 ** 32 - 1)]);
    start += length + 1 + (random(3) === 0 ? random(2 ** 21) : 0);
  }
  v4.push([0xffffff00, 0xffffffff]);
  const v6: [bigint, bigint][] = [];
  for (let start = 0n; v6.length < 3000; ) {
    const length = BigInt(random(2 ** 20)) << BigInt(random(90));
    v6.push([start, start + length]);
    start += length + 1n + (random(2) === 0 ? BigInt(random(2 ** 30)) << 80n : 0n);
  }
  const builder = new RangeIndexBuilder<number>();
  for (const [i, [s, e]] of v4.entries()) builder.add({ version: 4, first: BigInt(s), last: BigInt(e) }, i);
  for (const [i, [s, e]] of v6.entries()) builder.add({ version: 6, first: s, last: e }, i);
  const index = new RangeIndex(
    builder.build(
      (ps) => ps[0],
      (p) => p,
    ),
  );

  const scanV4 = (a: number) => v4.findIndex(([s, e]) => s <= a && a <= e);
  const scanV6 = (a: bigint) => v6.findIndex(([s, e]) => s <= a && a <= e);
  const words = (a: bigint) =>
    Uint32Array.of(
      Number(a >> 96n),
      Number((a >> 64n) & 0xffffffffn),
      Number((a >> 32n) & 0xffffffffn),
      Number(a & 0xffffffffn),
    );

  test("IPv4: every range edge, the addresses beside it and random addresses agree with a scan", () => {
    const probes = [
      0,
      2 ** 32 - 1,
      ...v4.flatMap(([s, e]) => [s - 1, s, e, e + 1].filter((a) => a >= 0 && a < 2 ** 32)),
    ];
    for (let i = 0; i < 5000; i++) probes.push(random(2 ** 31) * 2 + random(2));
    for (const a of probes) expect(index.lookupV4(a)).toBe(scanV4(a));
  });

  test("IPv6: every range edge, the addresses beside it and random addresses agree with a scan", () => {
    const top = (1n << 128n) - 1n;
    const probes = [0n, top, ...v6.flatMap(([s, e]) => [s - 1n, s, e, e + 1n].filter((a) => a >= 0n && a <= top))];
    for (let i = 0; i < 2000; i++) probes.push(BigInt(random(2 ** 31)) << BigInt(random(97)));
    for (const a of probes) expect(index.lookupV6(words(a))).toBe(scanV6(a));
  });
});
