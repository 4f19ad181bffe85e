import { existsSync } from "node:fs";
import { join } from "node:path";
import { EvidenceIndex, EvidenceIndexBuilder } from "../../ip/indexes/evidence-index.ts";
import { decodeIndexFile, encodeIndexFile } from "../../ip/indexes/range-index-file.ts";
import { type OutputInput, indexAsBuiltNow } from "./outputs.ts";
import { linkOrCopy, writeFileAtomically } from "../staged-files.ts";

/**
 * Writes one evidence index per IP list into `dir`: each range it lists with its count
 * and when an update first saw it. An unchanged list keeps its file (unless it lacks its bucket tables); a changed one
 * inherits first-seen times from the current version's file, so a listing's age
 * survives updates.
 */
export async function composeEvidence(
  inputs: readonly { input: OutputInput; changed: boolean }[],
  currentDir: string | null,
  dir: string,
  nowSeconds: number,
): Promise<void> {
  // What building the outputs left for the collector, freed before these builds add theirs.
  Bun.gc(true);
  for (const { input, changed } of inputs) {
    const file = `${input.name}.idx`;
    const before = currentDir === null ? null : join(currentDir, file);
    if (before && existsSync(before) && !changed && indexAsBuiltNow(before, "evidence")) {
      linkOrCopy(before, join(dir, file));
      continue;
    }
    const previous =
      before && existsSync(before)
        ? new EvidenceIndex(decodeIndexFile(await Bun.file(before).arrayBuffer(), before, "evidence"))
        : null;
    const builder = new EvidenceIndexBuilder();
    for (const { range, count } of input.ipEntries().entries) {
      builder.add(range, { count, firstSeen: previous?.atStartOf(range)?.firstSeen ?? nowSeconds });
    }
    writeFileAtomically(join(dir, file), encodeIndexFile(builder.build({ source: input.name })));
  }
}
