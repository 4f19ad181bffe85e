import type { CompiledEvidence } from "../email/compiled-evidence.ts";
import { DisposableEvidence } from "../email/disposable-evidence.ts";
import type { FamilyCandidate } from "../email/families.ts";
import { LISTED_STRENGTHS, ListedNames } from "../email/listed-names.ts";
import { PackedDomainSet, type PackedDomainSetParts } from "../email/packed-domain-set.ts";
import { DatasetError } from "../ip/dataset-error.ts";
import { mapDataFile } from "../ip/mapped-file.ts";
import { type ArrayKind, readChecksummedSections, writeChecksummedSections } from "../ip/sectioned-file.ts";
import type { CheckedFiles } from "./checked-files.ts";
import { writeFileAtomically } from "./staged-files.ts";

const MAGIC = 0x50455352; // "RSEP" little-endian: riskcheck email evidence pack
/** 2 added each list's last-seen times (a rolling list's remembered names) and the family candidates; a format-1 pack reads with none. */
const FORMAT = 2;
const FORMATS_READ = [1, 2];

/** What the pack says in JSON; each packed set's arrays are sections, in this order. */
interface PackIndex {
  readonly sources: readonly {
    name: string;
    verifies: boolean;
    copies: string[];
    wildcard: boolean;
    checkedAt: string | null;
    size: number;
    mask: number;
  }[];
  readonly exact: { size: number; mask: number };
  readonly wildcard: { size: number; mask: number };
  readonly suffixes: readonly string[];
  /** Absent from a format-1 pack. */
  readonly families?: readonly FamilyCandidate[];
}

/**
 * `compiled` as one file: a JSON index, then each list's packed names (bytes, starts, slots)
 * with their first-seen and last-seen times, then each kind's listed names with their strengths, then an
 * xxHash3 of everything before it.
 */
export function encodeEvidencePack(compiled: CompiledEvidence): Uint8Array {
  const sources = compiled.evidence.sources;
  const index: PackIndex = {
    sources: sources.map((s) => ({
      name: s.name,
      verifies: s.verifies,
      copies: [...s.copies],
      wildcard: s.wildcard,
      checkedAt: s.checkedAt,
      size: s.entries.size,
      mask: s.entries.parts.mask,
    })),
    exact: { size: compiled.exact.names.size, mask: compiled.exact.names.parts.mask },
    wildcard: { size: compiled.wildcard.names.size, mask: compiled.wildcard.names.parts.mask },
    suffixes: compiled.suffixes,
    families: compiled.families,
  };
  const arrays = (p: PackedDomainSetParts) => [p.bytes, p.starts, p.slots];
  return writeChecksummedSections(MAGIC, FORMAT, [
    new TextEncoder().encode(JSON.stringify(index)),
    ...sources.flatMap((s) => [...arrays(s.entries.parts), s.firstSeen, s.lastSeen]),
    ...[compiled.exact, compiled.wildcard].flatMap((l) => [...arrays(l.names.parts), l.strengths]),
  ]);
}

export function writeEvidencePack(file: string, compiled: CompiledEvidence): void {
  writeFileAtomically(file, encodeEvidencePack(compiled));
}

const DAMAGED_FIX =
  "run `riskcheck update --force` to write the version again, or remove the file (each start then compiles the " +
  "lists from email/evidence/ until an update writes it)";

/**
 * The pack at `file`, mapped (`mapDataFile`), its checksum, every array's length and every strength checked; a
 * DatasetError naming the file when it is damaged. The checks that read every page (the checksum, the strengths) are
 * left out where `checked` says they passed on this very file before, against this program's strengths.
 */
export function readEvidencePack(file: string, checked: CheckedFiles): CompiledEvidence {
  const { bytes } = mapDataFile(file);
  const unchanged = checked.passed(file, WHOLE_DECODE_CHECK);
  try {
    const pack = decodeEvidencePack(bytes, unchanged);
    if (!unchanged) checked.note(file, WHOLE_DECODE_CHECK);
    return pack;
  } catch (err) {
    throw new DatasetError(file, `damaged compiled email lists (${(err as Error).message})`, DAMAGED_FIX);
  }
}

/**
 * What `CheckedFiles` records of a pack whose whole decode passed (checksum, lengths, strengths). Whether a strength's
 * code is known depends on `LISTED_STRENGTHS` too, so its names are part of the check's: a program with another table
 * checks each pack whole once.
 */
const WHOLE_DECODE_CHECK = `xxhash3+strengths:${LISTED_STRENGTHS.join(",")}`;

/** The pack in `data`; `checked`: these very bytes passed this decode whole before (see `readEvidencePack`). */
export function decodeEvidencePack(data: Uint8Array, checked = false): CompiledEvidence {
  const file = readChecksummedSections(data, MAGIC, "an evidence pack", FORMATS_READ, checked);
  if (file === null)
    throw new Error(
      `format ${new DataView(data.buffer, data.byteOffset).getUint32(4, true)}, not ${FORMATS_READ.join(" or ")}`,
    );
  let next = 0;
  const words = <T>(Kind: ArrayKind<T>) => file.section(next++, Kind);
  const bytes = () => words(Uint8Array);
  const index = JSON.parse(new TextDecoder().decode(bytes())) as PackIndex;
  const packed = ({ size, mask }: { size: number; mask: number }): PackedDomainSet =>
    PackedDomainSet.fromParts(
      PackedDomainSet.checkedParts({
        size,
        mask,
        bytes: bytes(),
        starts: words(Uint32Array),
        slots: words(Int32Array),
      }),
    );
  const sources = index.sources.map((s) => {
    const entries = packed(s);
    const firstSeen = words(Uint32Array);
    if (firstSeen.length !== s.size) throw new Error(`${s.name}: a first-seen time for every name is needed`);
    const lastSeen = file.format === 1 ? new Uint32Array(s.size) : words(Uint32Array);
    if (lastSeen.length !== s.size) throw new Error(`${s.name}: a last-seen time for every name is needed`);
    return {
      name: s.name,
      verifies: s.verifies,
      copies: new Set(s.copies),
      wildcard: s.wildcard,
      entries,
      firstSeen,
      lastSeen,
      checkedAt: s.checkedAt,
    };
  });
  const listed = (kind: { size: number; mask: number }) => {
    const names = packed(kind);
    const strengths = bytes();
    // ListedNames checks that every name has one.
    if (!checked && strengths.some((code) => code >= LISTED_STRENGTHS.length))
      throw new Error("a listed name's strength is unknown");
    return new ListedNames(names, strengths);
  };
  const exact = listed(index.exact);
  const wildcard = listed(index.wildcard);
  if (next !== file.count) throw new Error("sections are left over");
  return {
    evidence: new DisposableEvidence(sources),
    exact,
    wildcard,
    suffixes: index.suffixes,
    families: index.families ?? [],
  };
}
