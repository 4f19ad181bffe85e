import { describe, expect, test } from "bun:test";
import { rangeOfCidr } from "../../../src/ip/address/address-range.ts";
import { EvidenceIndex, EvidenceIndexBuilder } from "../../../src/ip/indexes/evidence-index.ts";
import { explain } from "../../../src/ip/answer/explanation.ts";
import { ipFacts } from "../../../src/ip/answer/ip-facts.ts";
import { KIND } from "../../../src/ip/verdict/network-kinds.ts";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { decodeIndexFile, encodeIndexFile } from "../../../src/ip/indexes/range-index-file.ts";
import type { ReportingSource } from "../../../src/ip/verdict/report-counting.ts";
import { FLAG, ReputationIndex, ReputationIndexBuilder } from "../../../src/ip/indexes/reputation-index.ts";
import { bundledIpDatasets } from "../../support/test-app.ts";

const REPORTING = new Map<string, ReportingSource>([
  ["ipsum", { category: "attack", weight: 1, includes: ["bl-ssh", "bl-bots"] }],
  ["bl-ssh", { category: "attack", weight: 1, includes: [] }],
  ["bl-bots", { category: "bot", weight: 1, includes: [] }],
]);
/** What each list says: [source, CIDR, count or flags, first seen (seconds)]. */
const LISTINGS: [string, string, { count: number } | { flags: number }, number][] = [
  ["ipsum", "81.2.69.142/32", { count: 4 }, 1_780_000_000],
  ["bl-ssh", "81.2.69.142/32", { count: 1 }, 1_785_000_000],
  ["ipsum", "81.2.69.143/32", { count: 1 }, 1_780_000_000],
  ["bl-bots", "81.2.69.143/32", { count: 1 }, 1_781_000_000],
  ["tor", "81.2.69.0/24", { flags: KIND.vpn }, 1_770_000_000],
  ["drop", "5.188.10.0/23", { flags: FLAG.confirmedBad }, 1_760_000_000],
];
const SOURCES = {
  ipsum: { feeds: "attack", checkedAt: "2026-11-23T06:00:00.000Z" },
  "bl-ssh": { feeds: "attack", checkedAt: "2026-11-23T06:00:00.000Z" },
  "bl-bots": { feeds: "bot", checkedAt: "2026-11-23T06:00:00.000Z" },
  tor: { feeds: "vpn", checkedAt: "2026-11-22T06:00:00.000Z" },
  drop: { feeds: "confirmed-bad", checkedAt: "2026-11-20T06:00:00.000Z" },
};

async function datasets() {
  const builder = new ReputationIndexBuilder();
  const evidence = new Map<string, EvidenceIndexBuilder>();
  for (const [source, cidr, said, firstSeen] of LISTINGS) {
    const range = rangeOfCidr(cidr);
    builder.add(range, { source, ...said });
    if (!evidence.has(source)) evidence.set(source, new EvidenceIndexBuilder());
    evidence.get(source)!.add(range, { count: "count" in said ? said.count : 1, firstSeen });
  }
  const read = (bytes: Uint8Array, kind: "reputation" | "evidence") =>
    decodeIndexFile(bytes.slice().buffer, "x.idx", kind);
  return {
    ...(await bundledIpDatasets()),
    feeds: new ReputationIndex(read(encodeIndexFile(builder.build({}, REPORTING)), "reputation")),
    evidence: new Map(
      [...evidence].map(([source, b]) => [source, new EvidenceIndex(read(encodeIndexFile(b.build()), "evidence"))]),
    ),
  };
}

const explainFor = async (address: string) => {
  const d = await datasets();
  const ip = parseIpAddress(address)!;
  const facts = ipFacts(d, ip);
  return { facts, reasons: explain(d, facts, ip, SOURCES) };
};

describe("?explain=1: why an address is listed", () => {
  test("each list's word, the reports it adds after the lists it aggregates, and since when", async () => {
    const { facts, reasons } = await explainFor("81.2.69.142");
    expect(reasons.rule).toEqual({ id: "reports>=warning", level: "warning", reports: 4, threshold: 3 });
    expect(reasons.contributions).toEqual([
      {
        source: "ipsum",
        category: "attack",
        count: 4,
        weight: 1,
        counted: 3,
        first_seen: "2026-05-28T20:26:40.000Z",
        last_seen: "2026-11-23T06:00:00.000Z",
      },
      {
        source: "bl-ssh",
        category: "attack",
        count: 1,
        weight: 1,
        counted: 1,
        first_seen: "2026-07-25T17:20:00.000Z",
        last_seen: "2026-11-23T06:00:00.000Z",
      },
      {
        source: "tor",
        category: "vpn",
        count: 1,
        weight: 1,
        counted: 0,
        first_seen: "2026-02-02T02:40:00.000Z",
        last_seen: "2026-11-22T06:00:00.000Z",
      },
    ]);
    expect(reasons.kinds).toContainEqual({ kind: "vpn", from: "tor" });
    expect(facts.reputation).toMatchObject({ attack: 4, sum: 4, reputation: "warning" });
  });

  test("the contributions add up to the counters served", async () => {
    for (const address of ["81.2.69.142", "81.2.69.143", "81.2.69.1", "5.188.10.7"]) {
      const { facts, reasons } = await explainFor(address);
      expect(reasons.contributions.reduce((sum, c) => sum + c.counted, 0)).toBe(facts.reputation.sum);
    }
  });

  test("an aggregator that says no more than its parts adds nothing", async () => {
    const { facts, reasons } = await explainFor("81.2.69.143");
    expect(reasons.contributions.map((c) => [c.source, c.counted])).toEqual([
      ["ipsum", 0],
      ["bl-bots", 1],
      ["tor", 0],
    ]);
    expect(facts.reputation).toMatchObject({ bot: 1, attack: 0, sum: 1 });
  });

  test("a confirmed-malicious list sets the level", async () => {
    const { reasons } = await explainFor("5.188.10.7");
    expect(reasons.rule).toMatchObject({ id: "confirmed-bad", level: "bad" });
    expect(reasons.contributions).toContainEqual(
      expect.objectContaining({
        source: "drop",
        category: "confirmed-bad",
        counted: 0,
        first_seen: "2025-10-09T08:53:20.000Z",
      }),
    );
    expect(reasons.warnings).toBeUndefined();
  });
});
