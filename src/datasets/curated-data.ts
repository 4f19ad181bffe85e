import { basename } from "node:path";
import type { AddressRange } from "../ip/address/address-range.ts";
import { targetOfRange } from "../ip/overrides/ip-override.ts";
import type { OverrideInForce } from "../ip/overrides/override-lines.ts";
import { type AsnKindSource, KIND } from "../ip/verdict/network-kinds.ts";
import type { IndexFile } from "../ip/indexes/range-index-file.ts";
import { FLAG } from "../ip/indexes/reputation-index.ts";
import type { Geolocation } from "../ip/geo/geo-record.ts";
import { CheckedFiles } from "./checked-files.ts";
import { parseRegionTable, placeChecks } from "./cloud-region-table.ts";
import { compiledCuratedRanges } from "./compiled-curated-ranges.ts";
import { parseAsnList, parseExpiringCidrList } from "./curated-lists.ts";
import type { dataFiles } from "./data-layout.ts";
import { readTextDataset } from "./read-text-dataset.ts";
import type { DatasetInfo } from "./snapshot.ts";

type CuratedFiles = Pick<
  ReturnType<typeof dataFiles>,
  | "hostingAsns"
  | "cloudRegions"
  | "vpnAsns"
  | "educationAsns"
  | "ispAsns"
  | "crawlerRanges"
  | "anycastPrefixes"
  | "scannerRanges"
  | "ipAllowlist"
  | "ipDenylist"
  | "versions"
>;

/** The hand-kept lists under data/curated/ and what a listing means. */
const ASN_LISTS = [
  ["hostingAsns", KIND.hosting],
  ["vpnAsns", KIND.vpn],
  ["educationAsns", KIND.education],
  ["ispAsns", KIND.isp],
] as const;
const RANGE_LISTS = [
  ["crawlerRanges", KIND.crawler | FLAG.verifiedCrawler, "curated/crawler-ranges"],
  ["anycastPrefixes", FLAG.anycast, "curated/anycast-prefixes"],
  ["scannerRanges", KIND.scanner, "curated/scanner-ranges"],
] as const;
/**
 * The operator's own lists under data/ip/; optional, and their lines may expire. The
 * allowlist's lines join the override lines (riskcheck ip allow) as allow lines, where the
 * most specific line decides; the denylist flags its ranges.
 */
const OPERATOR_LISTS = [
  ["ipAllowlist", 0, "operator/ip-allowlist"],
  ["ipDenylist", FLAG.denylisted, "operator/ip-denylist"],
] as const;
const ALLOWLIST_REASON = "listed in data/ip/allowlist.txt";

export interface CuratedData {
  readonly asnKindSources: Map<number, AsnKindSource[]>;
  /** Ranges with their kind and flag bits; each remembers its list's name. */
  readonly ranges: IndexFile;
  /** Where each cloud region is, by name ("aws:eu-central-1"); empty when the table is missing. */
  readonly regions: Map<string, Geolocation>;
  readonly datasets: DatasetInfo[];
  /** Operator list entries left out because their `until` date has passed. */
  readonly expired: number;
  /** Why the compiled ranges' file could not be read, when it was compiled again; else null. */
  readonly rangesDamaged: string | null;
  /** data/ip/allowlist.txt's lines in force, as override lines. */
  readonly allowlist: OverrideInForce[];
}

/** Reads and compiles the curated and operator lists; a bad line throws a DatasetError naming file:line. */
export async function loadCuratedData(files: CuratedFiles, now = Date.now()): Promise<CuratedData> {
  const read = async (file: string, optional = false) => {
    const dataset = await readTextDataset(file, { optional });
    return (
      dataset && { file, text: dataset.text, info: { name: `curated/${basename(file)}`, file, date: dataset.modified } }
    );
  };
  const [regionTable, asnLists, rangeLists, operatorLists] = await Promise.all([
    // Optional: a data directory from before the table came keeps serving, its cloud ranges located by the city database.
    read(files.cloudRegions, true),
    Promise.all(ASN_LISTS.map(async ([key, bits]) => ({ ...(await read(files[key]))!, bits }))),
    Promise.all(RANGE_LISTS.map(async ([key, bits, source]) => ({ ...(await read(files[key]))!, bits, source }))),
    Promise.all(
      OPERATOR_LISTS.map(async ([key, bits, source]) => ({ list: await read(files[key], true), bits, source })),
    ),
  ]);

  const asnKindSources = new Map<number, AsnKindSource[]>();
  for (const list of asnLists) {
    for (const asn of parseAsnList(list.text, list.file))
      asnKindSources.set(asn, [...(asnKindSources.get(asn) ?? []), { bits: list.bits, source: list.info.name }]);
  }
  const allowlist: OverrideInForce[] = [];
  let allowlistExpired = 0;
  const present = operatorLists.flatMap(({ list, bits, source }) =>
    list ? [{ ...list, bits, source, info: { ...list.info, name: source } }] : [],
  );
  const allowlistFile = present.find((list) => list.source === "operator/ip-allowlist");
  for (const { cidr, until } of allowlistFile ? parseExpiringCidrList(allowlistFile.text, allowlistFile.file) : []) {
    if (until !== null && until <= now) allowlistExpired++;
    else allowlist.push(allowLine(cidr, until, allowlistFile!.info.date));
  }
  const { ranges, expired, damaged } = compiledCuratedRanges(
    [...rangeLists, ...present.filter((list) => list !== allowlistFile)],
    files.versions,
    now,
  );
  const regions = regionTable ? await readRegionTable(regionTable, files.versions) : new Map<string, Geolocation>();
  const datasets = [
    ...(regionTable ? [{ ...regionTable.info, entries: regions.size }] : []),
    ...[...asnLists, ...rangeLists, ...present].map((list) => list.info),
  ];
  return {
    asnKindSources,
    ranges,
    regions,
    datasets,
    expired: expired + allowlistExpired,
    rangesDamaged: damaged,
    allowlist,
  };
}

/**
 * The cloud-region table, its rows' subdivisions and time zones checked unless this very table (its file unchanged, its
 * text the same) passed those checks before: they cost a start more than all the rest of the curated data.
 */
async function readRegionTable(
  table: { file: string; text: string },
  versions: string,
): Promise<Map<string, Geolocation>> {
  const checked = CheckedFiles.of(versions);
  const check = `places:${Bun.hash.crc32(table.text)}`;
  const unchanged = checked.passed(table.file, check);
  const regions = parseRegionTable(table.text, table.file, unchanged ? null : await placeChecks());
  if (!unchanged) {
    checked.note(table.file, check);
    checked.save();
  }
  return regions;
}

function allowLine(range: AddressRange, until: number | null, modified: string | null): OverrideInForce {
  return {
    target: targetOfRange(range),
    action: "allow",
    reason: ALLOWLIST_REASON,
    author: "data/ip/allowlist.txt",
    created: modified ?? "",
    until: until === null ? null : new Date(until).toISOString(),
    source: "allowlist-file",
  };
}
