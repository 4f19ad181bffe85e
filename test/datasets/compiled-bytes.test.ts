import { describe, expect, test } from "bun:test";
import ipaddr from "ipaddr.js";
import { clipSpecialPurpose } from "../../src/datasets/update/clip-special-purpose.ts";
import {
  FORMATS,
  type FormatValues,
  type IpFormat,
  type SourceFormat,
} from "../../src/datasets/update/formats/index.ts";
import { OUTPUTS, type OutputInput } from "../../src/datasets/update/outputs.ts";
import { EvidenceIndexBuilder } from "../../src/ip/indexes/evidence-index.ts";
import { encodeIndexFile } from "../../src/ip/indexes/range-index-file.ts";

/**
 * The compiled IP outputs of a fixed, generated set of lists, pinned by hash: the ways of
 * building them in less memory must not change one byte. The hashes were made by the
 * build before those changes (commit be13695); a change of format is a new hash on purpose
 * (declared-locations: relay places and cloud regions in one index, issue 40; a geofeed row
 * without a country places nothing, issue 54).
 */
const EXPECTED: Record<string, string> = {
  "reputation-index": "3beffa9b5423ba8c862e0fb57eb8ca844184a8f2bdd97b102bdcdb00e8201f29",
  "infrastructure-labels": "037451c2671a26bde090779c777514ae1081c8048197c350ea48358b91747c45",
  "declared-locations": "63fccf2e3d387cd6cae7ef46b15480a446fed92f58e7fac760e564781855ec11",
  "evidence counted": "c8777a80d5c1773f486c008f0b38f3442adb1459307ea4ce45635460136a51fe",
  "evidence probes": "423ddd20d4a820cb10566af4e8c427dcd05f513c4cb4324bb5d05714638f616d",
  "evidence drop": "31e0772ad476e12f458d5980ebe48123c29758e537f0fc63293f0c2f4d8f4aba",
  "evidence hosting": "81a361f729157baffee8c72e597231c97e4a8f1be6272686f78adcb810d8633e",
  "evidence aws": "fcb5cff72aa574505527421f5ab71ec33a19368f5733649ce6731691a9b56db4",
  "evidence relay": "f23b5dfb8a5f9301c766e5b80ae37615ee0afc0564ca85a8c63348ae742d6451",
};

/** A small deterministic generator (LCG), so the fixture is the same on every run. */
function random(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

const v4 = (a: number) => `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`;

/** Addresses of a few public /16s and the special-purpose space they border, so entries overlap and some are clipped. */
function fixtureLists() {
  const r = random(24);
  const bases = [0x17000000, 0x2d4c0000, 0x68100000, 0xc6336400 - 0x6400, 0x0a000000, 0x64400000 - 0x10000];
  const address = () => bases[r(bases.length)] + r(1 << 17);
  const cidr = (bits: number) => {
    const a = address();
    return `${v4(a - (a % 2 ** (32 - bits)))}/${bits}`;
  };
  const v6 = (bits: number) => `2a02:26f7:${r(4).toString(16)}:${r(64).toString(16)}::/${bits}`;
  // A geofeed row's prefix is its network (host bits are refused): the one the parser made of v6's before it did.
  const v6Network = (bits: number) => `${ipaddr.IPv6.networkAddressFromCIDR(v6(bits)).toString()}/${bits}`;
  const lines = (n: number, line: () => string) => Array.from({ length: n }, line).join("\n");
  const places = [",US,US-CA,Cupertino,", ",GB,GB-ENG,London,", ",DE,,,", ",,,,", ",JP,JP-13,Tokyo,"];
  return {
    counted: `# counted\n${lines(3000, () => `${v4(address())}\t${1 + r(8)}`)}\n10.0.0.0/8\t3\n100.64.0.0/10\t2\n`,
    probes: lines(2000, () => (r(4) === 0 ? v6(48 + r(17)) : r(3) === 0 ? cidr(20 + r(13)) : v4(address()))),
    drop: JSON.stringify({
      prefixes: Array.from({ length: 300 }, () => ({ ipv4Prefix: cidr(16 + r(9)) })).concat(
        Array.from({ length: 50 }, () => ({ ipv4Prefix: v6(32 + r(17)) })),
      ),
    }),
    hosting: lines(1500, () => (r(5) === 0 ? v6(40 + r(9)) : cidr(18 + r(11)))),
    aws: JSON.stringify({
      createDate: "2026-11-01-00-00-00",
      prefixes: Array.from({ length: 400 }, () => ({
        ip_prefix: cidr(14 + r(15)),
        region: ["us-east-1", "eu-west-1", "GLOBAL"][r(3)],
        service: ["AMAZON", "EC2", "CLOUDFRONT"][r(3)],
      })),
      ipv6_prefixes: Array.from({ length: 100 }, () => ({
        ipv6_prefix: v6(32 + r(25)),
        region: "us-west-2",
        service: "EC2",
      })),
    }),
    geofeed: `# prefix,country,region,city,postal\n${lines(4000, () => (r(3) === 0 ? v6Network(44 + r(21)) : cidr(22 + r(11))) + places[r(places.length)])}\n`,
  };
}

function input(
  name: string,
  format: SourceFormat,
  feeds: string,
  text: string,
  extra: Partial<OutputInput> = {},
): OutputInput {
  const bytes = new TextEncoder().encode(text);
  let parsed: unknown;
  let entries: ReturnType<OutputInput["ipEntries"]> | undefined;
  return {
    name,
    format,
    feeds,
    weight: 1,
    includes: [],
    rawFile: `/nonexistent/${name}`,
    entries: 0,
    parsed<F extends SourceFormat>(f: F): FormatValues[F] {
      parsed ??= FORMATS[f].parse(bytes, feeds).value;
      return parsed as FormatValues[F];
    },
    ipEntries() {
      entries ??= clipSpecialPurpose(this.parsed(format as IpFormat));
      return entries;
    },
    ...extra,
  };
}

async function sha256(data: Uint8Array | string): Promise<string> {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}

describe("the compiled IP outputs of a fixed set of lists", () => {
  const lists = fixtureLists();
  const inputs = [
    input("counted", "address-list", "attack", lists.counted, { weight: 2 }),
    input("probes", "address-list", "probe", lists.probes, { includes: ["counted"] }),
    input("drop", "prefix-json", "confirmed-bad", lists.drop),
    input("hosting", "address-list", "hosting", lists.hosting),
    input("aws", "aws-ip-ranges", "hosting", lists.aws),
    input("relay", "geofeed-csv", "relay", lists.geofeed),
  ];
  const built = "2026-11-25T00:00:00.000Z";
  const hashes: Record<string, string> = {};

  test("the inputs overlap, are clipped and carry counts, labels and places", () => {
    expect(inputs.map((i) => i.ipEntries().entries.length)).toEqual([2236, 2000, 283, 1065, 336, 3339]);
    expect(inputs[0].ipEntries().clipped).toBeGreaterThan(100);
    expect(inputs[4].ipEntries().entries.every((e) => e.label?.startsWith("AWS "))).toBe(true);
    expect(inputs[5].ipEntries().entries.some((e) => e.place?.city === "Tokyo")).toBe(true);
  });

  for (const name of ["reputation-index", "infrastructure-labels", "declared-locations"] as const) {
    test(`${name} is byte for byte what the build made before`, async () => {
      const spec = OUTPUTS[name];
      const output = spec.build(
        inputs.filter((i) => spec.fedBy(i.format, i.feeds)),
        built,
      )!;
      expect("data" in output).toBe(true);
      hashes[name] = await sha256((output as { data: Uint8Array }).data);
      expect(hashes[name]).toBe(EXPECTED[name]);
    });
  }

  test("each list's evidence index is byte for byte what the build made before", async () => {
    for (const list of inputs) {
      const builder = new EvidenceIndexBuilder();
      let t = 1_700_000_000;
      for (const { range, count } of list.ipEntries().entries)
        builder.add(range, { count, firstSeen: (t += 7) - (t % 3) * 11 });
      hashes[`evidence ${list.name}`] = await sha256(encodeIndexFile(builder.build({ source: list.name })));
    }
    if (process.env.PRINT_COMPILED_HASHES) console.log(JSON.stringify(hashes, null, 2));
    for (const list of inputs) expect(hashes[`evidence ${list.name}`]).toBe(EXPECTED[`evidence ${list.name}`]);
  });
});
