/**
 * The IP indexes in numbers: `bun bench/ip-index.ts`. Compiles the bundled ASN CSVs
 * the way install does, then times loading the file and lookups of 100,000 random
 * addresses (IPv4 over the whole space, IPv6 over 2000::/3), and the reputation
 * builder on the real feed snapshots when ../shared/feeds is there.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { asnCsvRows } from "../src/datasets/update/formats/asn-csv.ts";
import { parseAddressList } from "../src/datasets/update/formats/address-list.ts";
import { AsnIndex, type AsnRange, compileAsnIndex } from "../src/ip/indexes/asn-index.ts";
import { encodeIndexFile, readIndexFile } from "../src/ip/indexes/range-index-file.ts";
import { RangeIndex } from "../src/ip/indexes/range-index.ts";
import type { CounterName } from "../src/ip/verdict/report-counting.ts";
import { ReputationIndexBuilder } from "../src/ip/indexes/reputation-index.ts";

const ASN_DIR = resolve(import.meta.dir, "../node_modules/@ip-location-db/asn");
const FEEDS = resolve(import.meta.dir, "../../shared/feeds");
const ms = (since: number) => `${((Bun.nanoseconds() - since) / 1e6).toFixed(0)} ms`;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

function* asnRows(): Generator<AsnRange> {
  for (const name of ["asn-ipv4-num.csv", "asn-ipv6-num.csv"])
    yield* asnCsvRows(readFileSync(join(ASN_DIR, name), "utf8"));
}

let started = Bun.nanoseconds();
const scratch = mkdtempSync(join(tmpdir(), "rk-bench-"));
const file = join(scratch, "asn.idx");
await Bun.write(file, encodeIndexFile(compileAsnIndex(asnRows(), {})));
console.log(
  `ASN compile (parse CSVs, build, encode, write)  ${ms(started)}; peak RSS ${mb(process.resourceUsage().maxRSS * 1024)}`,
);
console.log(`asn.idx                                         ${mb(statSync(file).size)}`);

started = Bun.nanoseconds();
const asn = new AsnIndex(await readIndexFile(file, "asn"));
console.log(
  `ASN load (read, validate, organisation strings) ${ms(started)}; ${asn.rangeCount} ranges, ${asn.entryCount} networks`,
);

const N = 100_000;
const v4 = new Uint32Array(N).map(() => Math.random() * 2 ** 32);
const v6 = Array.from({ length: N }, () =>
  new Uint32Array(4).map((_, i) => (i === 0 ? 0x20000000 + Math.random() * 2 ** 29 : Math.random() * 2 ** 32)),
);
const ranges = new RangeIndex((await readIndexFile(file, "asn")).columns);
rmSync(scratch, { recursive: true });
for (const [name, lookup] of [
  ["IPv4", (i: number) => ranges.lookupV4(v4[i])],
  ["IPv6", (i: number) => ranges.lookupV6(v6[i])],
] as const) {
  let sink = 0;
  for (let i = 0; i < N; i++) sink += lookup(i);
  started = Bun.nanoseconds();
  for (let round = 0; round < 10; round++) for (let i = 0; i < N; i++) sink += lookup(i);
  console.log(
    `lookup ${name}, 100k random addresses             ${((Bun.nanoseconds() - started) / N / 10).toFixed(0)} ns${sink < -1 ? "" : ""}`,
  );
}

const FEED_FILES: [string, string, string | number][] = [
  ["ipsum", "ipsum/ipsum.txt", "attack"],
  ["ipsum-level3", "ipsum/level3.txt", "probe"],
  ["x4bnet-datacenter-ipv4", "x4bnet-lists-vpn/datacenter-ipv4.txt", 1],
  ["x4bnet-datacenter-ipv6", "x4bnet-lists-vpn/datacenter-ipv6.txt", 1],
  ["x4bnet-vpn-ipv4", "x4bnet-lists-vpn/vpn-ipv4.txt", 2],
  ["x4bnet-vpn-ipv6", "x4bnet-lists-vpn/vpn-ipv6.txt", 2],
];
if (existsSync(FEEDS)) {
  const builder = new ReputationIndexBuilder();
  let entries = 0;
  for (const [source, path, what] of FEED_FILES) {
    for (const e of parseAddressList(readFileSync(join(FEEDS, path))).value) {
      entries++;
      builder.add(e.range, typeof what === "string" ? { source, count: e.count } : { source, flags: what });
    }
  }
  const reporting = new Map(
    FEED_FILES.flatMap(([source, , what]) =>
      typeof what === "string" ? [[source, { category: what as CounterName, weight: 1, includes: [] }] as const] : [],
    ),
  );
  started = Bun.nanoseconds();
  const built = builder.build({}, reporting);
  const bytes = encodeIndexFile(built).byteLength;
  console.log(
    `reputation build, ${entries} feed entries     ${ms(started)}; ${built.columns.v4Values.length + built.columns.v6Values.length} ranges, ${mb(bytes)}`,
  );
}
