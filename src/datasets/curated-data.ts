import { basename } from "node:path";
import { KIND } from "../ip/network-kinds.ts";
import type { IndexFile } from "../ip/range-index-file.ts";
import { FLAG, ReputationIndexBuilder } from "../ip/reputation-index.ts";
import { parseAsnList, parseCidrList } from "./curated-lists.ts";
import type { dataFiles } from "./data-layout.ts";
import { readTextDataset } from "./read-text-dataset.ts";
import type { DatasetInfo } from "./snapshot.ts";

type CuratedFiles = Pick<ReturnType<typeof dataFiles>, "hostingAsns" | "vpnAsns" | "educationAsns" | "ispAsns" | "crawlerRanges" | "anycastPrefixes" | "scannerRanges">;

/** The hand-kept lists under data/curated/ and what a listing means. */
const ASN_LISTS = [
  ["hostingAsns", KIND.hosting],
  ["vpnAsns", KIND.vpn],
  ["educationAsns", KIND.education],
  ["ispAsns", KIND.isp],
] as const;
const RANGE_LISTS = [
  ["crawlerRanges", KIND.crawler | FLAG.verifiedCrawler],
  ["anycastPrefixes", FLAG.anycast],
  ["scannerRanges", KIND.scanner],
] as const;

export interface CuratedData {
  /** Kind bits by AS number. */
  readonly kindsByAsn: Map<number, number>;
  /** Ranges with their kind and flag bits; the source of each is "curated/<file name>". */
  readonly ranges: IndexFile;
  readonly datasets: DatasetInfo[];
}

/** Reads and compiles the curated lists; a bad line throws a DatasetError naming file:line. */
export async function loadCuratedData(files: CuratedFiles): Promise<CuratedData> {
  const read = async (file: string) => {
    const { text, modified } = (await readTextDataset(file))!;
    return { file, text, info: { name: `curated/${basename(file)}`, file, date: modified } };
  };
  const [asnLists, rangeLists] = await Promise.all([
    Promise.all(ASN_LISTS.map(async ([key, bits]) => ({ ...(await read(files[key])), bits }))),
    Promise.all(RANGE_LISTS.map(async ([key, bits]) => ({ ...(await read(files[key])), bits }))),
  ]);

  const kindsByAsn = new Map<number, number>();
  for (const list of asnLists) {
    for (const asn of parseAsnList(list.text, list.file)) kindsByAsn.set(asn, (kindsByAsn.get(asn) ?? 0) | list.bits);
  }
  const ranges = new ReputationIndexBuilder();
  for (const list of rangeLists) {
    const source = `curated/${basename(list.file, ".txt")}`;
    for (const cidr of parseCidrList(list.text, list.file)) ranges.addCidr(cidr, { source, flags: list.bits });
  }
  return { kindsByAsn, ranges: ranges.build(), datasets: [...asnLists, ...rangeLists].map((list) => list.info) };
}
