const align = (n: number) => (n + 7) & ~7;

/**
 * A file of `headerWords` 32-bit words, then an (offset, byte length) pair per section,
 * then the sections, each 8-byte aligned so that it can be read as any typed array.
 */
export function writeSectionedFile(headerWords: readonly number[], sections: readonly Uint8Array[]): Uint8Array {
  let size = (headerWords.length + sections.length * 2) * 4;
  const offsets = sections.map((s) => {
    size = align(size);
    const at = size;
    size += s.byteLength;
    return at;
  });
  const out = new Uint8Array(align(size));
  const view = new DataView(out.buffer);
  headerWords.forEach((word, i) => {
    view.setUint32(i * 4, word, true);
  });
  sections.forEach((s, i) => {
    view.setUint32((headerWords.length + i * 2) * 4, offsets[i], true);
    view.setUint32((headerWords.length + i * 2 + 1) * 4, s.byteLength, true);
    out.set(s, offsets[i]);
  });
  return out;
}

const HEADER_WORDS = 3;
const CHECKSUM_BYTES = 8;

/** A typed array's constructor, as a section is read through. */
export type ArrayKind<T> = {
  new (buffer: ArrayBufferLike, offset: number, length: number): T;
  BYTES_PER_ELEMENT: number;
};

/** A sectioned file headed by `magic`, `format` and the count of `sections`, then an xxHash3 of all before it. */
export function writeChecksummedSections(
  magic: number,
  format: number,
  sections: readonly ArrayBufferView[],
): Uint8Array {
  const bytes = sections.map((s) => new Uint8Array(s.buffer, s.byteOffset, s.byteLength));
  const body = writeSectionedFile([magic, format, sections.length], bytes);
  const out = new Uint8Array(body.length + CHECKSUM_BYTES);
  out.set(body);
  new DataView(out.buffer).setBigUint64(body.length, Bun.hash.xxHash3(body), true);
  return out;
}

/** What `readChecksummedSections` found: the file's format, and its sections read in place. */
export interface ChecksummedSections {
  readonly format: number;
  readonly count: number;
  /** Section `n` as `Kind`'s elements; throws when it is missing, lies outside the file or is cut short. */
  section<T>(n: number, Kind: ArrayKind<T>): T;
}

/**
 * The sections of a file `writeChecksummedSections` wrote; null for one of a format not in
 * `formats` (its checksum unread). Throws saying why when it is not `what` (by its magic) or is
 * damaged. `checksummed`: its checksum is known to match, and is not read again.
 */
export function readChecksummedSections(
  data: Uint8Array,
  magic: number,
  what: string,
  formats: readonly number[],
  checksummed = false,
): ChecksummedSections | null {
  if (data.byteLength < HEADER_WORDS * 4 + CHECKSUM_BYTES) throw new Error("too short");
  const bodyLength = data.byteLength - CHECKSUM_BYTES;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (view.getUint32(0, true) !== magic) throw new Error(`not ${what}`);
  const format = view.getUint32(4, true);
  if (!formats.includes(format)) return null;
  if (!checksummed && view.getBigUint64(bodyLength, true) !== Bun.hash.xxHash3(data.subarray(0, bodyLength)))
    throw new Error("its checksum does not match");
  const count = view.getUint32(8, true);
  if ((HEADER_WORDS + count * 2) * 4 > bodyLength) throw new Error("too many sections");
  return {
    format,
    count,
    section<T>(n: number, Kind: ArrayKind<T>): T {
      if (n >= count) throw new Error("a section is missing");
      const at = (HEADER_WORDS + n * 2) * 4;
      const offset = view.getUint32(at, true);
      const length = view.getUint32(at + 4, true);
      if (offset % 8 !== 0 || offset + length > bodyLength) throw new Error("a section lies outside the file");
      if (length % Kind.BYTES_PER_ELEMENT !== 0) throw new Error("a section is cut short");
      return new Kind(data.buffer, data.byteOffset + offset, length / Kind.BYTES_PER_ELEMENT);
    },
  };
}
