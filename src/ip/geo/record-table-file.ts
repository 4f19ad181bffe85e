import { writeSectionedFile } from "../sectioned-file.ts";
import { DatasetError } from "../dataset-error.ts";
import type { MmdbTreeShape, TreeJumpTables } from "./mmdb-tree.ts";

/**
 * An MMDB file compiled for serving: its search tree with each leaf leading to a record
 * number, and per record a few strings (a column each), deduplicated into one UTF-8 pool.
 * Layout: "RCRT", layout version, then the header words and nine (offset, byte length)
 * pairs, then the sections, 8-byte aligned. Every section is served as a typed array over
 * the mapped file, the string pool too.
 */
export interface RecordTableFile {
  readonly shape: MmdbTreeShape;
  readonly tree: Uint8Array;
  readonly jumps: TreeJumpTables;
  readonly columns: number;
  readonly recordCount: number;
  /** Strings per chunk of the pool (the last chunk may hold fewer). */
  readonly stringsPerChunk: number;
  /** Per record, `columns` string numbers. */
  readonly cells: Uint32Array;
  /** Per string, where it ends in its chunk's decoded text, in UTF-16 code units; a chunk's first starts at 0. */
  readonly stringEnds: Uint32Array;
  /** Per chunk, where its bytes end in `pool`. */
  readonly chunkEnds: Uint32Array;
  /** Per chunk, LATIN1 (one byte a character: an 8-bit string, half the memory) or UTF8. */
  readonly chunkEncodings: Uint8Array;
  readonly pool: Uint8Array;
  /** What the MMDB was: its database type and build date. */
  readonly meta: { readonly databaseType: string; readonly buildDate: string };
}

/** Strings per chunk of the pool that `compileRecordTable` writes: a chunk decodes in about a millisecond. */
export const STRINGS_PER_CHUNK = 1024;
/** Bumped whenever the layout or what a column holds changes: a file of another layout is compiled again. */
export const RECORD_TABLE_LAYOUT = 2;
export const UTF8 = 0;
export const LATIN1 = 1;

const MAGIC = 0x54524352; // "RCRT" little-endian
const HEADER_WORDS = 8;
const SECTIONS = 9;
const HEADER_BYTES = (HEADER_WORDS + SECTIONS * 2) * 4;

export function encodeRecordTableFile(file: RecordTableFile): Uint8Array {
  const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const sections = [
    file.tree,
    bytesOf(file.jumps.v4After16),
    bytesOf(file.jumps.v6After16 ?? new Uint32Array(0)),
    bytesOf(file.cells),
    bytesOf(file.stringEnds),
    bytesOf(file.chunkEnds),
    file.chunkEncodings,
    file.pool,
    new TextEncoder().encode(JSON.stringify(file.meta)),
  ];
  const { shape } = file;
  return writeSectionedFile(
    [
      MAGIC,
      RECORD_TABLE_LAYOUT,
      shape.recordSize,
      shape.nodeCount,
      shape.ipVersion,
      file.columns,
      file.recordCount,
      file.stringsPerChunk,
    ],
    sections,
  );
}

/**
 * The table in `bytes` (a mapped file): every section a view of them, nothing copied; the
 * header and the sections' shapes checked.
 */
export function readRecordTableFile(bytes: Uint8Array, path: string): RecordTableFile {
  const corrupt = corruptIn(path);
  if (bytes.byteLength < HEADER_BYTES) throw corrupt("shorter than its header");
  const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  const sections = sectionsOf(header, bytes.byteLength, corrupt);
  return fromSections(
    header,
    (i) => bytes.subarray(sections[i].offset, sections[i].offset + sections[i].length),
    corrupt,
  );
}

function corruptIn(path: string) {
  return (why: string) => new DatasetError(path, `corrupt compiled table (${why})`);
}

function sectionsOf(
  view: DataView,
  size: number,
  corrupt: (why: string) => Error,
): { offset: number; length: number }[] {
  const word = (i: number) => view.getUint32(i * 4, true);
  if (word(0) !== MAGIC) throw corrupt("not a riskcheck compiled table");
  if (word(1) !== RECORD_TABLE_LAYOUT) throw corrupt(`layout ${word(1)}, expected ${RECORD_TABLE_LAYOUT}`);
  return Array.from({ length: SECTIONS }, (_, i) => {
    const offset = word(HEADER_WORDS + i * 2);
    const length = word(HEADER_WORDS + i * 2 + 1);
    if (offset % 8 !== 0 || offset < HEADER_BYTES || offset + length > size)
      throw corrupt(`section ${i} out of bounds`);
    return { offset, length };
  });
}

/** The file from its header and its sections' bytes, its shapes checked. */
function fromSections(
  header: DataView,
  bytes: (i: number) => Uint8Array,
  corrupt: (why: string) => Error,
): RecordTableFile {
  const word = (i: number) => header.getUint32(i * 4, true);
  const shape = { recordSize: word(2), nodeCount: word(3), ipVersion: word(4) };
  const columns = word(5);
  const recordCount = word(6);
  const stringsPerChunk = word(7);
  const words = (i: number) => {
    const b = bytes(i);
    if (b.byteLength % 4 !== 0) throw corrupt(`section ${i} is not whole words`);
    return new Uint32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  };
  const tree = bytes(0);
  const v4After16 = words(1);
  const v6 = words(2);
  const cells = words(3);
  const stringEnds = words(4);
  const chunkEnds = words(5);
  const chunkEncodings = bytes(6);
  const pool = bytes(7);
  if (![24, 28, 32].includes(shape.recordSize) || tree.byteLength !== (shape.nodeCount * shape.recordSize) / 4)
    throw corrupt("its tree does not match its shape");
  if (v4After16.length !== 1 << 16 || (v6.length !== 0 && v6.length !== 1 << 16))
    throw corrupt("its jump tables are not 65,536 entries");
  if (cells.length !== recordCount * columns) throw corrupt("its cells are not one row per record");
  if (
    stringsPerChunk === 0 ||
    chunkEnds.length !== Math.ceil(stringEnds.length / stringsPerChunk) ||
    (chunkEnds.length > 0 && chunkEnds[chunkEnds.length - 1] !== pool.byteLength)
  )
    throw corrupt("its string chunks do not cover the pool");
  if (chunkEncodings.length !== chunkEnds.length || chunkEncodings.some((e) => e !== UTF8 && e !== LATIN1))
    throw corrupt("its chunks' encodings are not one known encoding per chunk");
  let meta: RecordTableFile["meta"];
  try {
    meta = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes(8)));
  } catch (err) {
    throw corrupt((err as Error).message);
  }
  return {
    shape,
    tree,
    jumps: { v4After16, v6After16: v6.length ? v6 : null },
    columns,
    recordCount,
    stringsPerChunk,
    cells,
    stringEnds,
    chunkEnds,
    chunkEncodings,
    pool,
    meta,
  };
}
