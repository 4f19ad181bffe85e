/**
 * The byte-identical guard on IP answers: a seeded sample of addresses over the bundled data
 * and the digests of their answers, with and without `?explain=1`. The digests of the whole
 * sample were computed once from the answers as they were before any change to the lookups
 * (`test/fixtures/ip-answers/digests.json`, written by `bun bench/ip-answers.ts --write`);
 * `test/ip/answer/answers-unchanged.test.ts` checks the first chunks on every test run,
 * `bun bench/ip-answers.ts` all of them.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Answers } from "../../src/checks/answers.ts";
import { dataFiles, versionFiles } from "../../src/datasets/data-layout.ts";
import type { Snapshot } from "../../src/datasets/snapshot.ts";
import { parseIpAddress } from "../../src/ip/address/parse.ts";
import { type IndexKind, readIndexFile } from "../../src/ip/indexes/range-index-file.ts";

export const DIGESTS_FILE = join(import.meta.dir, "../fixtures/ip-answers/digests.json");

/** What the digests file holds: one digest per CHUNK addresses of the sample, in order. */
export interface AnswerDigests {
  readonly seed: number;
  readonly chunk: number;
  readonly count: number;
  /** The dataset packages the answers come from (package.json's versions when written). */
  readonly data: Record<string, string>;
  readonly digests: readonly string[];
}

/** Written ahead of the sample: well-known addresses, other text forms, special-purpose space. */
const FIXED = [
  "0.0.0.0",
  "255.255.255.255",
  "10.0.0.1",
  "127.0.0.1",
  "100.64.0.1",
  "192.0.2.1",
  "224.0.0.1",
  "1.1.1.1",
  "8.8.8.8",
  "::",
  "::1",
  "::ffff:8.8.8.8",
  "2001:DB8::1",
  "2001:4860:4860::8888",
  "2606:4700:4700::1111",
  "fe80::1",
  "ff02::1",
  "fc00::1",
  "2002:808:808::1",
  "64:ff9b::808:808",
];

/** The IPv6 registries' busiest /12s, where the databases have most records (a fully random IPv6 address is mostly nowhere). */
const BUSY_V6 = [0x2400, 0x2600, 0x2800, 0x2a00, 0x2a10, 0x2c00];

interface Edges {
  readonly v4: readonly Uint32Array[];
  readonly v6: readonly Uint32Array[];
}

/** The starts and ends of every range of the current version's indexes: the bundled data's, or more after an update. */
async function rangeEdges(dataDir: string): Promise<Edges> {
  const f = versionFiles(dataFiles(dataDir).current);
  const indexes: [string, IndexKind][] = [
    [f.asnIndex, "asn"],
    [f.reputationIndex, "reputation"],
    [f.infrastructureLabels, "labels"],
    [f.declaredLocations, "places"],
  ];
  const v4: Uint32Array[] = [];
  const v6: Uint32Array[] = [];
  for (const [file, kind] of indexes) {
    if (!existsSync(file)) continue;
    const { columns } = await readIndexFile(file, kind);
    if (columns.v4Starts.length > 0) v4.push(columns.v4Starts, columns.v4Ends);
    if (columns.v6Starts.length > 0) v6.push(columns.v6Starts, columns.v6Ends);
  }
  return { v4, v6 };
}

const v4Text = (v: number) => `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
const V6_MAX = (1n << 128n) - 1n;

function v6Text(value: bigint): string {
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((value >> shift) & 0xffffn).toString(16));
  return groups.join(":");
}

/**
 * `count` addresses, the same ones for the same seed and data: after FIXED, in every five
 * one edge of a range of the data's indexes (its first or last address, or the one just
 * outside), then random addresses, four IPv4 to one IPv6.
 */
export async function sampleAddresses(dataDir: string, seed: number, count: number): Promise<string[]> {
  const edges = await rangeEdges(dataDir);
  let state = seed >>> 0;
  // xorshift32: fast, and the same sequence on every machine.
  const next = () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>>= 0);
  };
  const edge = (): string => {
    const v6 = next() % 5 === 0 && edges.v6.length > 0;
    const columns = v6 ? edges.v6 : edges.v4;
    const bounds = columns[next() % columns.length];
    const at = next() % (v6 ? bounds.length / 4 : bounds.length);
    const step = [-1, 0, 0, 1][next() % 4];
    if (!v6) return v4Text(Math.min(0xffffffff, Math.max(0, bounds[at] + step)));
    let value = 0n;
    for (let i = 0; i < 4; i++) value = (value << 32n) | BigInt(bounds[at * 4 + i]);
    value += BigInt(step);
    return v6Text(value < 0n ? 0n : value > V6_MAX ? V6_MAX : value);
  };
  const random = (): string => {
    const a = next();
    if (a % 5 !== 0) return v4Text(next());
    // Half in the busiest /12s, half anywhere in 2000::/3.
    const first = a % 2 === 0 ? BUSY_V6[next() % BUSY_V6.length] + (next() & 0xf) : 0x2000 + (next() & 0x1fff);
    const rest = Array.from({ length: 7 }, () => (next() & 0xffff).toString(16));
    return [first.toString(16), ...rest].join(":");
  };
  const out = FIXED.slice(0, count);
  for (let i = out.length; i < count; i++) out.push(i % 5 === 0 && edges.v4.length > 0 ? edge() : random());
  return out;
}

/**
 * One digest per `chunk` addresses: SHA-256 (first 16 hex digits) over each address's answer
 * body, then its body with `?explain=1`, each line-terminated, exactly as GET
 * /v1/ip-reputation-check writes them (the routes' own Answers).
 */
export function answerDigests(snapshot: Snapshot, addresses: readonly string[], chunk: number): string[] {
  const plain = new Answers(snapshot, false);
  const explained = new Answers(snapshot, true);
  const digests: string[] = [];
  for (let from = 0; from < addresses.length; from += chunk) {
    const hasher = new Bun.CryptoHasher("sha256");
    for (const address of addresses.slice(from, from + chunk)) hasher.update(answerLines(plain, explained, address));
    digests.push(hasher.digest("hex").slice(0, 16));
  }
  return digests;
}

/** An address's two answers, each on its line: what a digest is made of, and what `--dump` writes. */
export function answerLines(plain: Answers, explained: Answers, address: string): string {
  const parsed = parseIpAddress(address);
  if (parsed === null) throw new Error(`the sample holds an address the parser refuses: ${address}`);
  return `${plain.ipJson(plain.lookUp(parsed))}\n${explained.ipJson(explained.lookUp(parsed))}\n`;
}
