import { readFile } from "node:fs/promises";
import { Reader, type Response as MmdbRecord } from "maxmind";
import { DatasetError } from "../dataset-error.ts";
import { MmdbTree } from "./mmdb-tree.ts";

export type { Response as MmdbRecord } from "maxmind";

// `require`, because Bun's bundler gives a default import of this CommonJS module as the
// whole module object in the compiled binary, where Bun itself gives the class.
const { default: Decoder } = require("mmdb-lib/lib/decoder") as typeof import("mmdb-lib/lib/decoder");

export interface OpenedMmdb {
  readonly file: string;
  /** For the metadata, and for lookups by address text off the request path. */
  readonly reader: Reader<MmdbRecord>;
  readonly tree: MmdbTree;
  readonly databaseType: string;
  readonly buildDate: string;
  readonly bytes: Buffer;
  /** The record a tree pointer (from `tree.recordPointer`) leads to, decoded afresh. */
  recordAt(pointer: number): unknown;
}

const METADATA_MARKER = Buffer.from("\xab\xcd\xefMaxMind.com", "latin1");

/**
 * Reads an MMDB into memory once, without watching the file. Its records are decoded and
 * checked when it is compiled (`compileRecordTable`) or verified (`verifyRecords`). Errors name the file and the fix.
 */
export async function openMmdb(file: string): Promise<OpenedMmdb> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new DatasetError(file, code === "ENOENT" ? "missing" : `cannot be read (${code ?? (err as Error).message})`);
  }
  return parseMmdb(bytes, file);
}

/** Opens MMDB bytes: the metadata and the search tree's shape; `verifyRecords` or `compileRecordTable` reads the rest. */
export function parseMmdb(bytes: Buffer, file: string): OpenedMmdb {
  try {
    const reader = new Reader<MmdbRecord>(bytes);
    const { nodeCount, searchTreeSize } = reader.metadata;
    const tree = new MmdbTree(bytes, reader.metadata);
    // A pointer is nodeCount + 16 + the record's offset in the data section, which starts after the tree and 16 zero bytes.
    const decoder = new Decoder(bytes, searchTreeSize + 16);
    const recordAt = (pointer: number) => decoder.decode(pointer - nodeCount + searchTreeSize).value;
    return {
      file,
      reader,
      tree,
      databaseType: reader.metadata.databaseType,
      buildDate: reader.metadata.buildEpoch.toISOString(),
      bytes,
      recordAt,
    };
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
 * Walks the whole search tree once and decodes and checks every record it leads to, so a
 * damaged file fails here, naming itself, rather than as errors on some lookups later.
 */
export function verifyRecords(mmdb: OpenedMmdb): RecordCounts {
  const records = checkedRecords(mmdb);
  for (let i = 0; i < records.pointers.length; i++) records.decode(i);
  return { records: records.pointers.length, networks: records.networks };
}

/** The tree's data pointers, and a decoder of the record behind each that throws a DatasetError on a damaged one. */
export function checkedRecords(mmdb: OpenedMmdb): {
  pointers: Uint32Array;
  networks: number;
  decode(ordinal: number): Record<string, unknown>;
} {
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
  const pointers = Uint32Array.from(walk.pointers);
  // Parts that records share (a country, a time zone) are decoded and checked once.
  const decoder = new Decoder(bytes, dataStart, new Map());
  const checked = new WeakSet<object>();
  const decode = (ordinal: number): Record<string, unknown> => {
    const pointer = pointers[ordinal];
    const at = () => `the record at data offset ${pointer - nodeCount - 16}`;
    let record: unknown;
    try {
      record = decoder.decode(pointer - nodeCount + searchTreeSize).value;
    } catch (err) {
      throw damaged(`${at()} cannot be decoded: ${(err as Error).message}`);
    }
    if (record === null || typeof record !== "object" || Array.isArray(record)) throw damaged(`${at()} is not a map`);
    const mistyped = mistypedField(record as Record<string, unknown>, checked);
    if (mistyped) throw damaged(`${at()} has ${mistyped}`);
    return record as Record<string, unknown>;
  };
  return { pointers, networks: walk.networks, decode };
}

/**
 * The type of each record field the answers read (MaxMind and DB-IP layouts, and
 * ip-location-db's flat one). A damaged byte can turn a string into a number or bytes and
 * still decode; the answer for that network would then fail.
 */
const FIELD_TYPES: Readonly<Record<string, "string" | "number" | "object">> = {
  country_code: "string",
  state1: "string",
  state2: "string",
  postcode: "string",
  timezone: "string",
  latitude: "number",
  longitude: "number",
  country: "object",
  registered_country: "object",
  subdivisions: "object",
  postal: "object",
  location: "object",
  names: "object",
  iso_code: "string",
  en: "string",
  code: "string",
  time_zone: "string",
  autonomous_system_number: "number",
  autonomous_system_organization: "string",
  isp: "string",
  organization: "string",
  connection_type: "string",
};

/** The first field, at any depth, whose value is not of its type ("state1 of type number"), or null. */
function mistypedField(value: Record<string, unknown>, seen: WeakSet<object>): string | null {
  if (seen.has(value)) return null;
  for (const key in value) {
    const field = value[key];
    const expected = Object.hasOwn(FIELD_TYPES, key) ? FIELD_TYPES[key] : undefined;
    const actual = field === null ? "null" : Buffer.isBuffer(field) ? "bytes" : typeof field;
    if (expected && actual !== expected) return `${key} of type ${actual}, not ${expected}`;
    if (actual === "object") {
      const inner = mistypedField(field as Record<string, unknown>, seen);
      if (inner) return inner;
    }
  }
  seen.add(value);
  return null;
}
