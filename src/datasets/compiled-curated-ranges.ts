import { existsSync } from "node:fs";
import { join } from "node:path";
import { decodeIndexFile, encodeIndexFile, type IndexFile } from "../ip/indexes/range-index-file.ts";
import { ReputationIndexBuilder } from "../ip/indexes/reputation-index.ts";
import { DatasetError } from "../ip/dataset-error.ts";
import { mapDataFile } from "../ip/mapped-file.ts";
import { moduleCode } from "../runtime/code-digest.ts";
import { parseExpiringCidrList } from "./curated-lists.ts";
import { writeFileAtomically } from "./staged-files.ts";

/** A range list's text and what a listing in it means. */
export interface RangeList {
  readonly file: string;
  readonly text: string;
  readonly source: string;
  readonly bits: number;
}

/**
 * The range lists' index, and how many of their lines were left out as expired. Read from
 * `datasets/.curated-ranges.idx` when the same code compiled it from these very texts and no line's `until`
 * has passed since; else compiled (the lines parsed: most of the curated data's cost at a start, code running
 * for the first time) and written there for the next load. A damaged file is compiled again and written
 * anew; `damaged` says why, for the load's log.
 */
export function compiledCuratedRanges(
  lists: readonly RangeList[],
  versionsDir: string,
  now: number,
): { ranges: IndexFile; expired: number; damaged: string | null } {
  const file = join(versionsDir, ".curated-ranges.idx");
  const from = String(
    Bun.hash(
      JSON.stringify([moduleCode("datasets/compiled-curated-ranges.ts"), lists.map((l) => [l.source, l.bits, l.text])]),
    ),
  );
  let stored: IndexFile | null = null;
  let damaged: string | null = null;
  try {
    stored = existsSync(file) ? decodeIndexFile(mapDataFile(file).bytes, file, "reputation") : null;
  } catch (err) {
    damaged = `${file}: ${err instanceof DatasetError ? err.problem : (err as Error).message}`;
  }
  if (stored && stored.meta.compiledFrom === from && (stored.meta.until === null || now < Number(stored.meta.until)))
    return { ranges: stored, expired: Number(stored.meta.expired), damaged };

  const builder = new ReputationIndexBuilder();
  let expired = 0;
  let until: number | null = null;
  for (const list of lists) {
    for (const entry of parseExpiringCidrList(list.text, list.file)) {
      if (entry.until !== null && entry.until <= now) expired++;
      else {
        if (entry.until !== null) until = Math.min(until ?? entry.until, entry.until);
        builder.add(entry.cidr, { source: list.source, flags: list.bits });
      }
    }
  }
  const ranges = builder.build({ compiledFrom: from, until, expired });
  try {
    writeFileAtomically(file, encodeIndexFile(ranges));
  } catch {
    // An unwritable data directory compiles its lists at every load.
  }
  return { ranges, expired, damaged };
}
