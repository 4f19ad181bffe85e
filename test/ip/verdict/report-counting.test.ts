import { describe, expect, test } from "bun:test";
import { type ReportingSource, countedReports, countersOf } from "../../../src/ip/verdict/report-counting.ts";

/** The default sources' shape: ipsum counts the lists FireHOL is built from; level 2 counts blocklist.de. */
const SOURCES = new Map<string, ReportingSource>([
  ["ipsum", { category: "attack", weight: 1, includes: ["bl-ssh", "bl-bots", "level2", "level3"] }],
  ["level2", { category: "attack", weight: 1, includes: ["bl-ssh", "bl-bots"] }],
  ["level3", { category: "probe", weight: 1, includes: [] }],
  ["bl-ssh", { category: "attack", weight: 1, includes: [] }],
  ["bl-bots", { category: "bot", weight: 1, includes: [] }],
  ["heavy", { category: "attack", weight: 3, includes: [] }],
]);

describe("independent evidence is counted once", () => {
  test.each([
    ["one plain list", [["bl-ssh", 1]], [1]],
    ["ipsum alone counts its number of lists", [["ipsum", 5]], [5]],
    [
      "an aggregator adds what exceeds its included lists",
      [
        ["bl-ssh", 1],
        ["ipsum", 4],
      ],
      [1, 3],
    ],
    [
      "an aggregator that reports no more than its parts adds nothing",
      [
        ["bl-ssh", 1],
        ["bl-bots", 1],
        ["ipsum", 1],
      ],
      [1, 1, 0],
    ],
    [
      "nested aggregators: level 2 over blocklist.de, ipsum over both",
      [
        ["bl-ssh", 1],
        ["level2", 1],
        ["ipsum", 3],
      ],
      [1, 0, 2],
    ],
    [
      "level 2 alone is one report, and ipsum counts it",
      [
        ["level2", 1],
        ["ipsum", 2],
      ],
      [1, 1],
    ],
    ["a weight multiplies a listing", [["heavy", 1]], [3]],
    ["an unknown list counts nothing", [["nobody", 9]], [0]],
  ] as const)("%s", (_, listings, counted) => {
    expect(
      countedReports(
        listings.map(([source, count]) => ({ source, count })),
        SOURCES,
      ),
    ).toEqual([...counted]);
  });

  test("counters keep each list's category; the sum is the independent reports", () => {
    const counters = countersOf(
      [
        { source: "bl-bots", count: 1 },
        { source: "bl-ssh", count: 1 },
        { source: "level3", count: 1 },
        { source: "ipsum", count: 6 },
      ],
      SOURCES,
    );
    expect(counters).toEqual({ bot: 1, probe: 1, rate: 0, attack: 4, crawler: 0 });
  });
});
