import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compiledCuratedRanges, type RangeList } from "../../src/datasets/compiled-curated-ranges.ts";
import { parseIpAddress } from "../../src/ip/address/parse.ts";
import { FLAG, ReputationIndex } from "../../src/ip/indexes/reputation-index.ts";
import { KIND } from "../../src/ip/verdict/network-kinds.ts";
import { BUNDLED_DATA_DIR } from "../support/bundled-data.ts";

const NOW = Date.parse("2026-11-23T12:00:00Z");
const DAY = 86_400_000;

function lists(scanners = "198.51.100.0/24\n"): RangeList[] {
  return [
    {
      file: join(BUNDLED_DATA_DIR, "curated", "crawler-ranges.txt"),
      text: readFileSync(join(BUNDLED_DATA_DIR, "curated", "crawler-ranges.txt"), "utf8"),
      source: "curated/crawler-ranges",
      bits: KIND.crawler | FLAG.verifiedCrawler,
    },
    { file: "/lists/scanner-ranges.txt", text: scanners, source: "curated/scanner-ranges", bits: KIND.scanner },
  ];
}

const stored = (dir: string) => join(dir, ".curated-ranges.idx");
const flagsAt = (ranges: ReturnType<typeof compiledCuratedRanges>["ranges"], address: string) => {
  const index = new ReputationIndex(ranges);
  return index.flags(index.entryOf(parseIpAddress(address)!));
};

describe("the curated ranges compiled", () => {
  test("a second load reads the file the first wrote, the same index as the compile", () => {
    const dir = mkdtempSync(join(tmpdir(), "rk-curated-ranges-"));
    const first = compiledCuratedRanges(lists(), dir, NOW);
    const written = statSync(stored(dir)).mtimeMs;
    const second = compiledCuratedRanges(lists(), dir, NOW);
    expect(statSync(stored(dir)).mtimeMs).toBe(written);
    // The file's columns also carry its bucket tables: none for an index this small.
    const { buckets, ...columns } = second.ranges.columns;
    expect(columns).toEqual(first.ranges.columns);
    expect(buckets).toEqual({ v4: null, v6: null });
    expect(second.ranges.payload).toEqual(first.ranges.payload);
    expect(second.ranges.meta).toEqual(first.ranges.meta);
    expect(flagsAt(second.ranges, "198.51.100.9")).toBe(KIND.scanner);
    expect(flagsAt(second.ranges, "66.249.66.1")).toBe(KIND.crawler | FLAG.verifiedCrawler);
  });

  test("a changed list is compiled again", () => {
    const dir = mkdtempSync(join(tmpdir(), "rk-curated-ranges-"));
    compiledCuratedRanges(lists(), dir, NOW);
    const changed = compiledCuratedRanges(lists("203.0.113.0/24\n"), dir, NOW);
    expect(flagsAt(changed.ranges, "198.51.100.9")).toBe(0);
    expect(flagsAt(changed.ranges, "203.0.113.9")).toBe(KIND.scanner);
    expect(flagsAt(compiledCuratedRanges(lists("203.0.113.0/24\n"), dir, NOW).ranges, "203.0.113.9")).toBe(
      KIND.scanner,
    );
  });

  test("a line whose day has passed since the compile is left out", () => {
    const dir = mkdtempSync(join(tmpdir(), "rk-curated-ranges-"));
    const expiring = lists("198.51.100.0/24 until 2026-11-23\n192.0.2.0/24 until 2026-11-01\n");
    const before = compiledCuratedRanges(expiring, dir, NOW);
    expect(before.expired).toBe(1);
    expect(flagsAt(before.ranges, "198.51.100.9")).toBe(KIND.scanner);
    expect(compiledCuratedRanges(expiring, dir, NOW).expired).toBe(1);
    const after = compiledCuratedRanges(expiring, dir, NOW + DAY);
    expect(after.expired).toBe(2);
    expect(flagsAt(after.ranges, "198.51.100.9")).toBe(0);
  });

  test("a damaged file is compiled again, written anew, and named", () => {
    const dir = mkdtempSync(join(tmpdir(), "rk-curated-ranges-"));
    expect(compiledCuratedRanges(lists(), dir, NOW).damaged).toBeNull();
    const bytes = readFileSync(stored(dir));
    writeFileSync(stored(dir), bytes.subarray(0, 40));
    const cut = compiledCuratedRanges(lists(), dir, NOW);
    expect(cut.damaged).toStartWith(`${stored(dir)}: corrupt index (`);
    expect(flagsAt(cut.ranges, "198.51.100.9")).toBe(KIND.scanner);
    expect(readFileSync(stored(dir))).toEqual(bytes);
    bytes[0] ^= 0xff;
    writeFileSync(stored(dir), bytes);
    const flipped = compiledCuratedRanges(lists(), dir, NOW);
    expect(flipped.damaged).toBe(`${stored(dir)}: corrupt index (not a riskcheck index file)`);
    expect(flagsAt(flipped.ranges, "66.249.66.1")).toBe(KIND.crawler | FLAG.verifiedCrawler);
    expect(compiledCuratedRanges(lists(), dir, NOW).damaged).toBeNull();
  });

  test("a bad line names file:line, and nothing is written", () => {
    const dir = mkdtempSync(join(tmpdir(), "rk-curated-ranges-"));
    expect(() => compiledCuratedRanges(lists("198.51.100.0/24\n10.0.0.0/33\n"), dir, NOW)).toThrow(
      '/lists/scanner-ranges.txt:2: "10.0.0.0/33" is not an IP address or CIDR',
    );
    expect(() => statSync(stored(dir))).toThrow();
  });
});
