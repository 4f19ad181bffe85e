import { describe, expect, test } from "bun:test";
import { parseCidr } from "../../src/ip/cidr.ts";
import { KIND } from "../../src/ip/network-kinds.ts";
import { parseIpAddress } from "../../src/ip/parse.ts";
import { decodeIndexFile, encodeIndexFile } from "../../src/ip/range-index-file.ts";
import { NOT_FOUND } from "../../src/ip/range-index.ts";
import { COUNTER_NAMES, type Contribution, FLAG, ReputationIndex, ReputationIndexBuilder, emptyReputationIndex } from "../../src/ip/reputation-index.ts";

const ip = (s: string) => parseIpAddress(s)!;

/** Builds from (CIDR, contribution) pairs and reads back through the file format. */
function indexOf(entries: [string, Contribution][]): ReputationIndex {
  const builder = new ReputationIndexBuilder();
  for (const [cidr, contribution] of entries) builder.addCidr(parseCidr(cidr)!, contribution);
  const bytes = encodeIndexFile(builder.build({ built: "2026-11-23" }));
  return new ReputationIndex(decodeIndexFile(bytes.slice().buffer, "reputation.idx", "reputation"));
}

const countersAt = (index: ReputationIndex, address: string) => {
  const entry = index.entryOf(ip(address));
  return entry === NOT_FOUND ? null : Object.fromEntries(COUNTER_NAMES.map((name, i) => [name, index.counter(entry, i)]));
};

describe("where lists overlap, counters add up per category", () => {
  const index = indexOf([
    ["192.0.2.0/24", { source: "firehol", counters: { attack: 1 } }],
    ["192.0.2.128/25", { source: "ipsum", counters: { attack: 7 } }],
    ["192.0.2.200/32", { source: "blocklist-de-bots", counters: { bot: 1 } }],
    ["192.0.2.200/32", { source: "blocklist-de-mail", counters: { rate: 2, bot: 1 } }],
  ]);
  test.each([
    ["192.0.2.1", { bot: 0, probe: 0, rate: 0, attack: 1, crawler: 0 }],
    ["192.0.2.129", { bot: 0, probe: 0, rate: 0, attack: 8, crawler: 0 }],
    ["192.0.2.200", { bot: 2, probe: 0, rate: 2, attack: 8, crawler: 0 }],
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

describe("each range remembers the lists that put it there, for ?explain=1", () => {
  test("in the order the lists were first seen", () => {
    const index = indexOf([
      ["198.51.100.0/24", { source: "list-a", counters: { probe: 1 } }],
      ["198.51.100.128/25", { source: "list-b", counters: { probe: 1 } }],
      ["198.51.100.128/25", { source: "list-a", counters: { probe: 1 } }],
    ]);
    expect(index.sources(index.entryOf(ip("198.51.100.1")))).toEqual(["list-a"]);
    expect(index.sources(index.entryOf(ip("198.51.100.200")))).toEqual(["list-a", "list-b"]);
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
      ["203.0.113.0/25", { source: "list-a", counters: { bot: 2 } }],
      ["203.0.113.128/25", { source: "list-a", counters: { bot: 2 } }],
    ]);
    expect(index.rangeCount).toBe(1);
  });
});

describe("an index with no feeds", () => {
  test("finds nothing and reports no flags", () => {
    const index = new ReputationIndex(emptyReputationIndex());
    expect([index.entryOf(ip("8.8.8.8")), index.flags(NOT_FOUND), index.rangeCount]).toEqual([NOT_FOUND, 0, 0]);
  });
});
