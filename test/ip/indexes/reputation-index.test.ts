import { describe, expect, test } from "bun:test";
import { parseCidr } from "../../../src/ip/address/address-range.ts";
import { KIND } from "../../../src/ip/verdict/network-kinds.ts";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { decodeIndexFile, encodeIndexFile } from "../../../src/ip/indexes/range-index-file.ts";
import { NOT_FOUND } from "../../../src/ip/indexes/range-index.ts";
import type { ReportingSource } from "../../../src/ip/verdict/report-counting.ts";
import {
  type Contribution,
  FLAG,
  ReputationIndex,
  ReputationIndexBuilder,
} from "../../../src/ip/indexes/reputation-index.ts";

const ip = (s: string) => parseIpAddress(s)!;

const REPORTING = new Map<string, ReportingSource>([
  ["firehol", { category: "attack", weight: 1, includes: [] }],
  ["ipsum", { category: "attack", weight: 1, includes: ["blocklist-de-bots", "blocklist-de-mail"] }],
  ["blocklist-de-bots", { category: "bot", weight: 1, includes: [] }],
  ["blocklist-de-mail", { category: "rate", weight: 2, includes: [] }],
  ["list-a", { category: "probe", weight: 1, includes: [] }],
  ["list-b", { category: "probe", weight: 1, includes: [] }],
]);

/** Builds from (CIDR, contribution) pairs and reads back through the file format. */
function indexOf(entries: [string, Contribution][]): ReputationIndex {
  const builder = new ReputationIndexBuilder();
  for (const [cidr, contribution] of entries) builder.add(parseCidr(cidr)!, contribution);
  const bytes = encodeIndexFile(builder.build({ built: "2026-11-23" }, REPORTING));
  return new ReputationIndex(decodeIndexFile(bytes.slice().buffer, "reputation.idx", "reputation"));
}

const countersAt = (index: ReputationIndex, address: string) => {
  const entry = index.entryOf(ip(address));
  return entry === NOT_FOUND ? null : index.counters(entry);
};

describe("where lists overlap, independent reports add up per category, each counted once", () => {
  const index = indexOf([
    ["192.0.2.0/24", { source: "firehol", count: 1 }],
    ["192.0.2.128/25", { source: "ipsum", count: 7 }],
    ["192.0.2.200/32", { source: "blocklist-de-bots", count: 1 }],
    ["192.0.2.200/32", { source: "blocklist-de-mail", count: 1 }],
    ["192.0.2.201/32", { source: "blocklist-de-bots", count: 1 }],
    ["192.0.2.201/32", { source: "blocklist-de-mail", count: 1 }],
    ["192.0.2.201/32", { source: "blocklist-de-mail", count: 1 }],
  ]);
  test.each([
    ["192.0.2.1", { bot: 0, probe: 0, rate: 0, attack: 1, crawler: 0 }],
    ["192.0.2.129", { bot: 0, probe: 0, rate: 0, attack: 8, crawler: 0 }],
    // ipsum's 7 already count the bots list (1) and the mail list (weight 2): it adds 4.
    ["192.0.2.200", { bot: 1, probe: 0, rate: 2, attack: 5, crawler: 0 }],
    // A range one list names twice counts once.
    ["192.0.2.201", { bot: 1, probe: 0, rate: 2, attack: 5, crawler: 0 }],
    ["192.0.3.0", null],
  ])("%s → %p", (address, counters) => {
    expect(countersAt(index, address)).toEqual(counters);
  });
});

describe("kinds and flags combine", () => {
  const index = indexOf([
    ["2001:db8::/32", { source: "x4bnet-datacenter", flags: KIND.hosting }],
    ["2001:db8:1::/48", { source: "x4bnet-vpn", flags: KIND.vpn }],
    ["2001:db8:1:2::/64", { source: "spamhaus-drop", flags: FLAG.confirmedBad }],
  ]);
  test.each([
    ["2001:db8::1", KIND.hosting],
    ["2001:db8:1::1", KIND.hosting | KIND.vpn],
    ["2001:db8:1:2::1", KIND.hosting | KIND.vpn | FLAG.confirmedBad],
    ["2001:db9::", 0],
  ])("%s → flags %d", (address, flags) => {
    expect(index.flags(index.entryOf(ip(address)))).toBe(flags);
  });
});

describe("each range remembers the lists that put it there, and what each means, for ?explain=1", () => {
  test("a list's kind and flag bits", () => {
    const index = indexOf([
      ["198.51.100.0/24", { source: "tor", flags: KIND.vpn }],
      ["198.51.100.0/25", { source: "drop", flags: FLAG.confirmedBad }],
    ]);
    expect(index.sources(index.entryOf(ip("198.51.100.1")))).toEqual([
      { name: "tor", flags: KIND.vpn },
      { name: "drop", flags: FLAG.confirmedBad },
    ]);
  });

  test("in the order the lists were first seen", () => {
    const index = indexOf([
      ["198.51.100.0/24", { source: "list-a", count: 1 }],
      ["198.51.100.128/25", { source: "list-b", count: 1 }],
      ["198.51.100.128/25", { source: "list-a", count: 1 }],
    ]);
    const names = (address: string) => index.sources(index.entryOf(ip(address))).map((s) => s.name);
    expect(names("198.51.100.1")).toEqual(["list-a"]);
    expect(names("198.51.100.200")).toEqual(["list-a", "list-b"]);
    expect(index.sources(NOT_FOUND)).toEqual([]);
  });

  test("stretches with the same counters but different lists stay apart", () => {
    const index = indexOf([
      ["203.0.113.0/25", { source: "list-a", flags: KIND.vpn }],
      ["203.0.113.128/25", { source: "list-b", flags: KIND.vpn }],
    ]);
    expect(index.rangeCount).toBe(2);
  });

  test("neighbours with the same counters, flags and lists become one range", () => {
    const index = indexOf([
      ["203.0.113.0/25", { source: "list-a", count: 2 }],
      ["203.0.113.128/25", { source: "list-a", count: 2 }],
    ]);
    expect(index.rangeCount).toBe(1);
  });
});

describe("an index with no feeds", () => {
  test("finds nothing and reports no flags", () => {
    const index = new ReputationIndex(new ReputationIndexBuilder().build());
    expect([index.entryOf(ip("8.8.8.8")), index.flags(NOT_FOUND), index.rangeCount]).toEqual([NOT_FOUND, 0, 0]);
  });
});
