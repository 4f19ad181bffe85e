import { type IndexFile, encodeIndexFile } from "../../src/ip/indexes/range-index-file.ts";
import { writeSectionedFile } from "../../src/ip/sectioned-file.ts";

/** `file` as a riskcheck from before the bucket tables wrote it: the same header, its first nine sections, no mark in its meta. */
export function indexWithoutTables(file: IndexFile): Uint8Array {
  const view = new DataView(encodeIndexFile(file).buffer);
  const c = file.columns;
  const sections = [c.v4Starts, c.v4Ends, c.v4Values, c.v6Starts, c.v6Ends, c.v6Values, file.payload].map(
    (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength),
  );
  sections.push(file.text, new TextEncoder().encode(JSON.stringify(file.meta)));
  return writeSectionedFile(
    [0, 1, 2].map((i) => view.getUint32(i * 4, true)),
    sections,
  );
}
