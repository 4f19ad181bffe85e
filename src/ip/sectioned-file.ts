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
