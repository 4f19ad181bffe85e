import { readFile } from "node:fs/promises";
import { Reader, type Response as MmdbRecord } from "maxmind";
import { lru } from "tiny-lru";
import { DatasetError } from "../datasets/dataset-error.ts";
import { MmdbTree, NO_RECORD } from "./mmdb-tree.ts";
import type { ParsedIp } from "./parse.ts";

export type { Response as MmdbRecord } from "maxmind";

export interface OpenedMmdb {
  readonly file: string;
  readonly reader: Reader<MmdbRecord>;
  readonly tree: MmdbTree;
  readonly databaseType: string;
  readonly buildDate: string;
}

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

/** Reads an MMDB into memory once, without watching the file. Errors name the file and the fix. */
export async function openMmdb(file: string): Promise<OpenedMmdb> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new DatasetError(file, code === "ENOENT" ? "missing" : `cannot be read (${code ?? (err as Error).message})`);
  }
  try {
    const reader = new Reader<MmdbRecord>(bytes, { cache: lru(DECODER_CACHE_ENTRIES) });
    const tree = new MmdbTree(bytes, reader.metadata);
    return { file, reader, tree, databaseType: reader.metadata.databaseType, buildDate: reader.metadata.buildEpoch.toISOString() };
  } catch (err) {
    throw new DatasetError(file, `not a valid MaxMind DB file (${(err as Error).message})`);
  }
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
