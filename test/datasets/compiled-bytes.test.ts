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
 * without a country places nothing, issue 54; every index: format 2, its bucket tables compiled in,
 * issue 56, its nine sections of format 1 byte for byte the ones before).
 */
const EXPECTED: Record<string, string> = {
  "reputation-index": "f6de9ad45e807b943cb855aa66566381572c5c29cab60f8945f7a3981c76819d",
  "infrastructure-labels": "f4c5dda3d836d98dbc01c099915e2df9d9aed495fcc55916c0588937a57130bc",
  "declared-locations": "d1fca757a3e5be700be71c71faad9cf7e145dd5bac70a696619481c34e88c236",
  "evidence counted": "b0a0cbb895390f3311c73fd1b8ca8fe2cb136aa27ec79c432c4c25bde8ec616b",
  "evidence probes": "4c3747f6ed35c3731988e2acf36519e7bc34770c3614a2f74307b6485e45e9e0",
  "evidence drop": "0b70b8ec24009b8ac762e1f73e48cb295071c8c92ea1f2f9d47b43b737708b29",
  "evidence hosting": "c9d2f4e96b662398c82dd5b193a51932b53c44d80e1d7efcf142a550f0938b03",
  "evidence aws": "1c47e71b384249855d7f2007cae20e05a3541565895eccb1371910bc60290d8e",
  "evidence relay": "1ebdbf9ff487e0609ed9a62296cd3c12cc1e686cd194343d40634de21b959d69",
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
