import { readFile } from "node:fs/promises";
import { Reader, type Response as MmdbRecord } from "maxmind";
import Decoder from "mmdb-lib/lib/decoder";
import { lru } from "tiny-lru";
import { DatasetError } from "../../datasets/dataset-error.ts";
import { MmdbTree, NO_RECORD } from "./mmdb-tree.ts";
import type { ParsedIp } from "../address/parse.ts";

export type { Response as MmdbRecord } from "maxmind";

/**
 * Decoded sub-structures the reader keeps (records share names, so decoding a new
 * record is cheaper with them); records themselves are cached once mapped, below.
 */
const DECODER_CACHE_ENTRIES = 10_000;

/**
 * Mapped records kept per database. Random public addresses fall into about 25,000
 * distinct city records (of 116,000 in the bundled IPv4 file), so this holds the
 * working set of real traffic in a few MB.
 */
const MAPPED_RECORDS_KEPT = 32_768;

export interface OpenedMmdb {
  readonly file: string;
  readonly reader: Reader<MmdbRecord>;
  readonly tree: MmdbTree;
  readonly databaseType: string;
  readonly buildDate: string;
  readonly bytes: Buffer;
}

const METADATA_MARKER = Buffer.from("\xab\xcd\xefMaxMind.com", "latin1");

/**
 * Reads an MMDB into memory once, without watching the file, and checks that every
 * record decodes, unless its content is the very file `update` already checked
 * (`verifiedHash`, from `mmdbContentHash`). Errors name the file and the fix.
 */
export async function openMmdb(file: string, verifiedHash?: string): Promise<OpenedMmdb> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new DatasetError(file, code === "ENOENT" ? "missing" : `cannot be read (${code ?? (err as Error).message})`);
  }
  const mmdb = parseMmdb(bytes, file);
  if (verifiedHash === undefined || mmdbContentHash(bytes) !== verifiedHash) verifyRecords(mmdb);
  return mmdb;
}

/** A fingerprint of a database file's bytes, to know a file already checked record by record. */
export function mmdbContentHash(bytes: Uint8Array): string {
  return Bun.hash(bytes).toString(16);
}

/** Opens MMDB bytes: the metadata and the search tree's shape; `verifyRecords` reads the rest. */
export function parseMmdb(bytes: Buffer, file: string): OpenedMmdb {
  try {
    const reader = new Reader<MmdbRecord>(bytes, { cache: lru(DECODER_CACHE_ENTRIES) });
    const tree = new MmdbTree(bytes, reader.metadata);
    return { file, reader, tree, databaseType: reader.metadata.databaseType, buildDate: reader.metadata.buildEpoch.toISOString(), bytes };
  } catch (err) {
    throw new DatasetError(file, `not a valid MaxMind DB file (${(err as Error).message})`);
  }
}

export interface RecordCounts {
  /** Distinct records in the data section that the tree leads to. */
  readonly records: number;
  /** Networks in the tree that lead to a record. */
  readonly networks: number;
}

/**
 * Walks the whole search tree once and decodes every record it leads to, so a damaged
 * file fails here, naming itself, rather than as errors on some lookups later.
 */
export function verifyRecords(mmdb: OpenedMmdb): RecordCounts {
  const { bytes, reader, file } = mmdb;
  const { searchTreeSize, nodeCount } = reader.metadata;
  const metadataStart = bytes.lastIndexOf(METADATA_MARKER);
  const dataStart = searchTreeSize + 16;
  const damaged = (why: string) => new DatasetError(file, `damaged MaxMind DB file (${why})`);
  if (metadataStart < dataStart) throw damaged("its data section is missing");
  let walk: { pointers: number[]; networks: number };
  try {
    walk = mmdb.tree.dataPointers(metadataStart - dataStart);
  } catch (err) {
    throw damaged((err as Error).message);
  }
  // Parts that records share (a country, a time zone) are decoded once.
  const decoder = new Decoder(bytes, dataStart, new Map());
  for (const pointer of walk.pointers) {
    let record: unknown;
    try {
      record = decoder.decode(pointer - nodeCount + searchTreeSize).value;
    } catch (err) {
      throw damaged(`the record at data offset ${pointer - nodeCount - 16} cannot be decoded: ${(err as Error).message}`);
    }
    if (record === null || typeof record !== "object" || Array.isArray(record)) {
      throw damaged(`the record at data offset ${pointer - nodeCount - 16} is not a map`);
    }
  }
  return { records: walk.pointers.length, networks: walk.networks };
}

/**
 * A lookup that maps each record of the database once: addresses of the same
 * network get the same value back, without decoding or mapping again.
 * `map(null)` is the answer for addresses the database has no record for.
 */
export function recordLookup<T>(mmdb: OpenedMmdb, map: (record: MmdbRecord | null) => T): (ip: ParsedIp) => T {
  const { tree, reader } = mmdb;
  const none = map(null);
  const mapped = new Map<number, T>();
  return (ip) => {
    const pointer = tree.recordPointer(ip);
    if (pointer === NO_RECORD) return none;
    let value = mapped.get(pointer);
    if (value === undefined) {
      value = map(reader.get(ip.text));
      // Oldest first out: cheap, and the hot records come straight back.
      if (mapped.size >= MAPPED_RECORDS_KEPT) mapped.delete(mapped.keys().next().value!);
      mapped.set(pointer, value);
    }
    return value;
  };
}
