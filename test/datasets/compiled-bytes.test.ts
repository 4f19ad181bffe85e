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
 * without a country places nothing, issue 54; every index: its bucket tables compiled in as two
 * more sections and marked in its meta, issue 56, its other eight sections byte for byte the ones before).
 */
const EXPECTED: Record<string, string> = {
  "reputation-index": "896d3894157f604c06858030d43c9035007caf0f2ec494330ff1032aeba07878",
  "infrastructure-labels": "b317fa6038f73859ce5720578a5163754f46556e4bf0815d4b6b94b36393bdb0",
  "declared-locations": "fbb87ca74b686726653ac1a5b2337837fde22fd53122a87a6c5ec5645cba1071",
  "evidence counted": "e0fd84f0fc6ddb2514ddeb35eab56c7e1d013893707a11a082cd68fa032aa015",
  "evidence probes": "fc9482bade6b07e6ff0c4382a7dcac6eb23c1f636e6d8e8053a10e190ed54d6a",
  "evidence drop": "0ac6769a8ec2437c2363278fcd4af8a6aa8609c9313bd361830f70b3a4cfb468",
  "evidence hosting": "2cbb79bc33c0ed4cb1c533f73b7b45ba879092d1d81832294fd17f4704b18dbb",
  "evidence aws": "f2a07c94405bf4e7ce9ae0d7ba037be4dc15712729b8689b4c315e8bea52bbf7",
  "evidence relay": "a55668f68b4a05095a205777bc35c4406a01b05779bb5290f49cbd8ec64e7554",
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
