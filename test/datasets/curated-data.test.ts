import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadCuratedData } from "../../src/datasets/curated-data.ts";
import { parseAsnList, parseCidrList } from "../../src/datasets/curated-lists.ts";
import { dataFiles } from "../../src/datasets/data-layout.ts";
import { KIND } from "../../src/ip/verdict/network-kinds.ts";
import { parseIpAddress } from "../../src/ip/address/parse.ts";
import { FLAG, ReputationIndex } from "../../src/ip/indexes/reputation-index.ts";
import { BUNDLED_DATA_DIR } from "../support/bundled-data.ts";

const CURATED = join(BUNDLED_DATA_DIR, "curated");

/** A data directory holding a copy of the shipped curated lists, with `changes` written over them. */
function dataDirWith(changes: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "rk-curated-"));
  cpSync(CURATED, join(dir, "curated"), { recursive: true });
  for (const [name, text] of Object.entries(changes)) writeFileSync(join(dir, "curated", name), text);
  return dir;
}

describe("the list format", () => {
  test("AS numbers with or without AS, comments, blank lines and stray blanks", () => {
    expect(
      parseAsnList("# header\n\nAS13335 # Cloudflare\n  as15169\n16509#Amazon\n\t AS4294967295 \n", "t.txt"),
    ).toEqual([13335, 15169, 16509, 4294967295]);
  });

  test("CIDRs and single addresses of both families", () => {
    const cidrs = parseCidrList("# header\n66.249.64.0/27 # Googlebot\n\n8.8.8.8\n2001:4860:4801:10::/60\n", "t.txt");
    expect(cidrs.map((c) => c.version)).toEqual([4, 4, 6]);
    expect(cidrs[1]).toEqual({ version: 4, first: 0x08080808n, last: 0x08080808n });
    expect(cidrs[2]).toEqual({
      version: 6,
      first: 0x2001486048010010n << 64n,
      last: (0x2001486048010010n << 64n) + (1n << 68n) - 1n,
    });
  });

  test.each([
    [
      "hosting-asns.txt",
      "AS1\nAS12x # typo\n",
      'hosting-asns.txt:2: "AS12x" is not an AS number; fix or remove the line',
    ],
    ["hosting-asns.txt", "AS1\n\n# fine\nAS4294967296\n", 'hosting-asns.txt:4: "AS4294967296" is not an AS number'],
    ["vpn-asns.txt", "AS 39351\n", 'vpn-asns.txt:1: "AS 39351" is not an AS number'],
    [
      "crawler-ranges.txt",
      "66.249.64.0/27\n66.249.64.0/33\n",
      'crawler-ranges.txt:2: "66.249.64.0/33" is not an IP address or CIDR',
    ],
    [
      "scanner-ranges.txt",
      "# Censys\n162.142.125/24\n",
      'scanner-ranges.txt:2: "162.142.125/24" is not an IP address or CIDR',
    ],
    [
      "anycast-prefixes.txt",
      "2001:db8::/129\n",
      'anycast-prefixes.txt:1: "2001:db8::/129" is not an IP address or CIDR',
    ],
  ])("a bad line in %s names file:line", async (name, text, message) => {
    const dir = dataDirWith({ [name]: text });
    await expect(loadCuratedData(dataFiles(dir))).rejects.toThrow(
      `${join(dir, "curated", name)}:${message.slice(name.length + 1)}`,
    );
  });

  test("a missing list names itself", async () => {
    const dir = dataDirWith();
    const files = { ...dataFiles(dir), ispAsns: join(dir, "curated", "gone.txt") };
    await expect(loadCuratedData(files)).rejects.toThrow(`${join(dir, "curated", "gone.txt")}: missing`);
  });
});

const curated = await loadCuratedData(dataFiles(BUNDLED_DATA_DIR));
const ranges = new ReputationIndex(curated.ranges);
const flagsAt = (address: string) => ranges.flags(ranges.entryOf(parseIpAddress(address)!));

describe("what the shipped lists say", () => {
  test.each([
    [16509, KIND.hosting, "Amazon"],
    [396982, KIND.hosting, "Google Cloud"],
    [24940, KIND.hosting, "Hetzner"],
    [39351, KIND.vpn, "Mullvad"],
    [209854, KIND.vpn, "Surfshark"],
    [680, KIND.education, "DFN"],
    [4134, KIND.isp, "Chinanet"],
    [7018, KIND.isp, "AT&T"],
    [3356, undefined, "Level 3, a transit carrier"],
  ])("AS%d → kinds %p (%s)", (asn, kinds) => {
    expect(curated.asnKindSources.get(asn)?.reduce((bits, s) => bits | s.bits, 0)).toBe(kinds);
  });

  test.each([
    ["66.249.66.1", KIND.crawler | FLAG.verifiedCrawler, "Googlebot"],
    ["2001:4860:4801:10::1", KIND.crawler | FLAG.verifiedCrawler, "Googlebot IPv6"],
    ["157.55.39.1", KIND.crawler | FLAG.verifiedCrawler, "Bingbot"],
    ["40.77.189.5", KIND.crawler | FLAG.verifiedCrawler, "Bingbot 40.77.188.0/22"],
    ["66.249.80.1", 0, "Google, but not in googlebot.json"],
    ["8.8.8.8", FLAG.anycast, "Google Public DNS"],
    ["2606:4700:4700::1111", FLAG.anycast, "Cloudflare DNS"],
    ["104.16.0.1", FLAG.anycast, "Cloudflare edge"],
    ["2001:7fe::53", FLAG.anycast, "i.root-servers.net"],
    ["162.142.125.9", KIND.scanner, "Censys"],
    ["81.2.69.142", 0, "an ordinary address"],
  ])("%s → flags %d (%s)", (address, flags) => {
    expect(flagsAt(address)).toBe(flags);
  });

  test("every range names the list it came from", () => {
    expect(ranges.sources(ranges.entryOf(parseIpAddress("162.142.125.9")!))).toEqual([
      { name: "curated/scanner-ranges", flags: KIND.scanner },
    ]);
    expect(curated.asnKindSources.get(16509)).toEqual([{ bits: KIND.hosting, source: "curated/hosting-asns.txt" }]);
  });

  test("each list is reported as a dataset with its file", () => {
    expect(
      curated.datasets
        .map((d) => d.name)
        .filter((n) => n.startsWith("curated/"))
        .sort(),
    ).toEqual(
      readdirSync(CURATED)
        .map((n) => `curated/${n}`)
        .sort(),
    );
  });

  test.each(readdirSync(CURATED))("%s opens with a header saying where its facts come from and when", (name) => {
    const header = readFileSync(join(CURATED, name), "utf8")
      .split("\n")
      .filter((line) => line.startsWith("#"))
      .join("\n");
    expect(header).toMatch(/20\d\d-\d\d/);
    expect(header.length).toBeGreaterThan(100);
  });
});

describe("the operator's IP allowlist and denylist", () => {
  const withOperatorLists = (allow: string, deny: string) => {
    const dir = dataDirWith();
    mkdirSync(join(dir, "ip"));
    writeFileSync(join(dir, "ip", "allowlist.txt"), allow);
    writeFileSync(join(dir, "ip", "denylist.txt"), deny);
    return dir;
  };
  const NOW = Date.parse("2026-11-23T12:00:00Z");

  test("are optional", async () => {
    const curated = await loadCuratedData(dataFiles(dataDirWith()), NOW);
    expect(curated.datasets.map((d) => d.name)).not.toContain("operator/ip-allowlist");
  });

  test("allow and deny ranges, with entries that expire after their day", async () => {
    const dir = withOperatorLists(
      "# partners\n203.0.113.0/24 # our office\n198.51.100.7 until 2026-11-23\n",
      "192.0.2.0/28 until 2026-11-22 # ended yesterday\n2001:db8::/48\n",
    );
    const curated = await loadCuratedData(dataFiles(dir), NOW);
    const index = new ReputationIndex(curated.ranges);
    const flags = (address: string) => index.flags(index.entryOf(parseIpAddress(address)!));
    // The allowlist's lines join the override lines (the most specific decides there), the denylist flags its ranges.
    expect(flags("203.0.113.9")).toBe(0);
    expect(curated.allowlist.map((l) => [l.target, l.action, l.until, l.source])).toEqual([
      ["203.0.113.0/24", "allow", null, "allowlist-file"],
      ["198.51.100.7", "allow", "2026-11-24T00:00:00.000Z", "allowlist-file"],
    ]);
    expect(flags("192.0.2.1")).toBe(0);
    expect(flags("2001:db8::1")).toBe(FLAG.denylisted);
    expect(curated.expired).toBe(1);
    expect(curated.datasets.map((d) => d.name)).toContain("operator/ip-denylist");
  });

  test("a malformed expiry names file:line", async () => {
    const dir = withOperatorLists("203.0.113.0/24 until tomorrow\n", "");
    await expect(loadCuratedData(dataFiles(dir), NOW)).rejects.toThrow(
      `${join(dir, "ip", "allowlist.txt")}:1: "203.0.113.0/24 until tomorrow" is not "CIDR" or "CIDR until YYYY-MM-DD"`,
    );
  });
});
