import { describe, expect, test } from "bun:test";
import { parseCidr } from "../../../src/ip/address/address-range.ts";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { RangeIndexBuilder } from "../../../src/ip/indexes/range-index-builder.ts";
import { NOT_FOUND, RangeIndex } from "../../../src/ip/indexes/range-index.ts";

/** Builds a set-valued index: each stretch gets the sorted labels covering it. */
function labelled(entries: [string, string][]) {
  const builder = new RangeIndexBuilder<string>();
  for (const [cidr, label] of entries) builder.add(parseCidr(cidr)!, label);
  const labels: string[] = [];
  const index = new RangeIndex(
    builder.build(
      (ls) => [...new Set(ls)].sort().join("+"),
      (l) => (labels.includes(l) ? labels.indexOf(l) : labels.push(l) - 1),
    ),
  );
  const at = (a: string) => {
    const value = index.lookup(parseIpAddress(a)!);
    return value === NOT_FOUND ? null : labels[value];
  };
  return { at, index };
}

/** Start–end IPv4 ranges with numeric payloads that add up where they overlap. */
function summed(ranges: [number, number, number][]) {
  const builder = new RangeIndexBuilder<number>();
  for (const [start, end, payload] of ranges)
    builder.add({ version: 4, first: BigInt(start), last: BigInt(end) }, payload);
  const c = builder.build(
    (xs) => xs.reduce((a, b) => a + b, 0),
    (x) => x,
  );
  return [...c.v4Starts].map((start, i) => [start, c.v4Ends[i], c.v4Values[i]]);
}

describe("overlapping entries are cut where they start and stop, payloads merged", () => {
  test.each([
    [
      "partial overlap",
      [
        [10, 20, 1],
        [15, 30, 2],
      ],
      [
        [10, 14, 1],
        [15, 20, 3],
        [21, 30, 2],
      ],
    ],
    [
      "nested",
      [
        [0, 100, 1],
        [40, 60, 2],
      ],
      [
        [0, 39, 1],
        [40, 60, 3],
        [61, 100, 1],
      ],
    ],
    [
      "same start",
      [
        [5, 9, 1],
        [5, 20, 2],
      ],
      [
        [5, 9, 3],
        [10, 20, 2],
      ],
    ],
    [
      "same end",
      [
        [5, 20, 1],
        [9, 20, 2],
      ],
      [
        [5, 8, 1],
        [9, 20, 3],
      ],
    ],
    [
      "identical",
      [
        [7, 8, 1],
        [7, 8, 2],
        [7, 8, 4],
      ],
      [[7, 8, 7]],
    ],
    [
      "one address inside",
      [
        [0, 9, 1],
        [5, 5, 2],
      ],
      [
        [0, 4, 1],
        [5, 5, 3],
        [6, 9, 1],
      ],
    ],
    [
      "three deep",
      [
        [0, 9, 1],
        [2, 7, 2],
        [4, 5, 4],
      ],
      [
        [0, 1, 1],
        [2, 3, 3],
        [4, 5, 7],
        [6, 7, 3],
        [8, 9, 1],
      ],
    ],
    [
      "a gap stays a gap",
      [
        [0, 4, 1],
        [10, 14, 1],
      ],
      [
        [0, 4, 1],
        [10, 14, 1],
      ],
    ],
    [
      "added out of order",
      [
        [50, 60, 1],
        [0, 9, 2],
        [55, 70, 4],
      ],
      [
        [0, 9, 2],
        [50, 54, 1],
        [55, 60, 5],
        [61, 70, 4],
      ],
    ],
  ] as [string, [number, number, number][], number[][]][])("%s", (_, input, expected) => {
    expect(summed(input)).toEqual(expected);
  });

  test("merge sees the payloads in the order they were added", () => {
    const builder = new RangeIndexBuilder<string>();
    builder.add({ version: 4, first: 0n, last: 9n }, "b");
    builder.add({ version: 4, first: 5n, last: 9n }, "a");
    builder.add({ version: 6, first: 0n, last: 9n }, "y");
    builder.add({ version: 6, first: 0n, last: 4n }, "x");
    const seen: string[] = [];
    builder.build(
      (ps) => seen.push(ps.join("")),
      () => 0,
    );
    expect(seen).toEqual(["b", "ba", "yx", "y"]);
  });
});

describe("neighbours with equal payloads become one range", () => {
  test.each([
    [
      "adjacent halves",
      [
        ["10.0.0.0/25", "a"],
        ["10.0.0.128/25", "a"],
        ["10.0.1.0/24", "b"],
      ],
      2,
    ],
    [
      "adjacent with different payloads stay apart",
      [
        ["10.0.0.0/25", "a"],
        ["10.0.0.128/25", "b"],
      ],
      2,
    ],
    [
      "not adjacent: a one-address gap",
      [
        ["10.0.0.0/32", "a"],
        ["10.0.0.2/32", "a"],
      ],
      2,
    ],
    [
      "nested with the same merged label",
      [
        ["10.0.0.0/8", "a"],
        ["10.1.0.0/16", "a"],
      ],
      1,
    ],
  ] as [string, [string, string][], number][])("%s", (_, entries, ranges) => {
    expect(labelled(entries).index.columns.v4Values.length).toBe(ranges);
  });

  test("a stretch covered by overlaps coalesces with its neighbours", () => {
    expect(
      summed([
        [0, 9, 1],
        [10, 19, 1],
        [5, 14, 0],
      ]),
    ).toEqual([[0, 19, 1]]);
  });
});

describe("the edges of the address space", () => {
  test("the whole IPv4 space and its last address", () => {
    const { at, index } = labelled([
      ["0.0.0.0/0", "all"],
      ["255.255.255.255/32", "top"],
    ]);
    expect([at("0.0.0.0"), at("255.255.255.254"), at("255.255.255.255")]).toEqual(["all", "all", "all+top"]);
    expect([...index.columns.v4Ends]).toEqual([0xfffffffe, 0xffffffff]);
  });

  test("the first address alone", () => {
    const { at } = labelled([["0.0.0.0/32", "zero"]]);
    expect([at("0.0.0.0"), at("0.0.0.1")]).toEqual(["zero", null]);
  });

  test("IPv6 across the boundary of the 64-bit halves", () => {
    const { at } = labelled([
      ["2001:db8::/32", "doc"],
      ["2001:db8:0:0:8000::/65", "upper"],
      ["::/0", "all"],
    ]);
    expect([
      at("2001:db8::1"),
      at("2001:db8::8000:0:0:1"),
      at("2001:db8::7fff:ffff:ffff:ffff"),
      at("2001:db9::"),
      at("::"),
    ]).toEqual(["all+doc", "all+doc+upper", "all+doc", "all", "all"]);
  });

  test("an IPv6 range that ends on the last address of a lower half and one that starts on the next", () => {
    const builder = new RangeIndexBuilder<number>();
    const half = 1n << 64n;
    builder.add({ version: 6, first: half - 16n, last: half - 1n }, 1);
    builder.add({ version: 6, first: half, last: half + 15n }, 2);
    const index = new RangeIndex(
      builder.build(
        (ps) => ps[0],
        (p) => p,
      ),
    );
    expect([
      index.lookup(parseIpAddress("::ffff:ffff:ffff:fff0")!),
      index.lookup(parseIpAddress("::ffff:ffff:ffff:ffff")!),
      index.lookup(parseIpAddress("0:0:0:1::")!),
      index.lookup(parseIpAddress("0:0:0:1::f")!),
      index.lookup(parseIpAddress("0:0:0:1::10")!),
    ]).toEqual([1, 1, 2, 2, NOT_FOUND]);
  });

  test("the whole IPv6 space and its last address", () => {
    const { at } = labelled([
      ["::/0", "all"],
      ["ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128", "top"],
    ]);
    expect([
      at("::"),
      at("ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe"),
      at("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
    ]).toEqual(["all", "all", "all+top"]);
  });

  test("families stay apart", () => {
    const { at } = labelled([
      ["0.0.0.0/0", "v4"],
      ["2001:db8::/32", "v6"],
    ]);
    expect([at("1.2.3.4"), at("2001:db8::1"), at("2001:db9::")]).toEqual(["v4", "v6", null]);
  });
});

describe("bad ranges are refused", () => {
  test.each([
    ["start after end", 4, 5n, 4n],
    ["beyond IPv4", 4, 0n, 1n << 32n],
    ["negative", 4, -1n, 3n],
    ["beyond IPv6", 6, 0n, 1n << 128n],
  ] as const)("%s", (_, version, start, end) => {
    expect(() => new RangeIndexBuilder<number>().add({ version, first: start, last: end }, 0)).toThrow(RangeError);
  });
});

describe("agrees with a brute-force model on random overlapping input", () => {
  test("2,000 ranges in a space of 5,000 addresses", () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const model = new Array<number>(5000).fill(0);
    const covered = new Array<boolean>(5000).fill(false);
    const ranges: [number, number, number][] = [];
    for (let i = 0; i < 2000; i++) {
      const start = random(5000);
      const end = Math.min(4999, start + random(i % 10 === 0 ? 800 : 20));
      const payload = 1 + random(3);
      ranges.push([start, end, payload]);
      for (let a = start; a <= end; a++) {
        model[a] += payload;
        covered[a] = true;
      }
    }
    const built = summed(ranges);
    const got = new Array<number>(5000).fill(0);
    const gotCovered = new Array<boolean>(5000).fill(false);
    built.forEach(([start, end, value], i) => {
      if (i > 0) expect(start).toBeGreaterThan(built[i - 1][1]);
      if (i > 0 && start === built[i - 1][1] + 1) expect(value).not.toBe(built[i - 1][2]);
      for (let a = start; a <= end; a++) {
        got[a] = value;
        gotCovered[a] = true;
      }
    });
    expect(got).toEqual(model);
    expect(gotCovered).toEqual(covered);
  });
});
