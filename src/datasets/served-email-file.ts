import { deserialize, serialize } from "bun:jsc";
import { join } from "node:path";
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import type { EvidenceRule } from "../email/evidence-rule.ts";
import { PackedDomainSet } from "../email/packed-domain-set.ts";
import { DatasetError } from "../ip/dataset-error.ts";
import { mapDataFile } from "../ip/mapped-file.ts";
import { readChecksummedSections, writeChecksummedSections } from "../ip/sectioned-file.ts";
import { moduleCode } from "../runtime/code-digest.ts";
import { CheckedFiles } from "./checked-files.ts";
import { dataFilesAt } from "./data-layout.ts";
import { readEvidencePack } from "./email-evidence-pack.ts";
import { writeFileAtomically } from "./staged-files.ts";
import type { FileDate, PreparedEmail } from "./prepared-email.ts";

const MAGIC = 0x4c455352; // "RSEL" little-endian: riskcheck served email lists
/** 2: the index as Bun's structured-clone bytes, not JSON. */
const FORMAT = 2;
const CHECKSUM_BYTES = 8;

type Files = ReturnType<typeof dataFilesAt>;

/** The files besides the pack that `prepareEmailPart` reads, by the names the key gives them. */
const INPUTS = [
  ["free", "freeDomains"],
  ["feed allowlist", "feedAllowedDomains"],
  ["disputed", "disputedDomains"],
  ["mail servers", "mailServers"],
  ["operator allowlist", "allowedDomains"],
  ["operator free providers", "freeSupplement"],
] as const satisfies readonly (readonly [string, keyof Files])[];

/** What the file holds besides the free set's arrays, as `serialize` writes it. */
type ServedIndex = Pick<PreparedEmail, "dropped" | "freeReport"> & {
  readonly key: string;
  readonly lists: Omit<PreparedEmail["lists"], "free" | "evidence" | "listed" | "overrides"> & {
    readonly free: { readonly size: number; readonly mask: number };
  };
  /** Which of the three optional text files were there. */
  readonly present: { readonly allowList: boolean; readonly feedAllow: boolean; readonly supplement: boolean };
};

/** Where a version keeps its served email lists. */
export function servedEmailFile(root: string): string {
  return join(root, "email", "served.pack");
}

/**
 * What decides the served lists of the version at `root`: this file's format, the code, the
 * rule, the evidence pack (its size and stored checksum: a load checks the rest of it) and the
 * bytes of every other file the lists are made from, present or not. Null for a version
 * without an evidence pack (made before `update` wrote one), whose lists are not kept.
 */
export function servedEmailKey(dataDir: string, root: string, rule: EvidenceRule): string | null {
  const files = dataFilesAt(dataDir, root);
  const pack = statSync(files.emailEvidencePack, { throwIfNoEntry: false });
  if (!pack?.isFile() || pack.size < CHECKSUM_BYTES) return null;
  const lines = [
    `format ${FORMAT}`,
    `code ${moduleCode("datasets/prepare-email.ts")}`,
    `rule ${rule}`,
    `evidence pack ${pack.size} ${storedChecksumOf(files.emailEvidencePack, pack.size)}`,
  ];
  for (const [name, file] of INPUTS) lines.push(`${name} ${digestOf(files[file])}`);
  return Bun.hash.xxHash3(lines.join("\n")).toString(16);
}

/** The file's xxHash3, "absent" or "unreadable": no key written after a load names the last. */
function digestOf(file: string): string {
  try {
    return Bun.hash.xxHash3(readFileSync(file)).toString(16);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? "absent" : "unreadable";
  }
}

/** The checksum a pack of `size` bytes ends with, as hex, read alone so that none of its pages is; or "unreadable". */
function storedChecksumOf(file: string, size: number): string {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return "unreadable";
  }
  try {
    const bytes = Buffer.alloc(CHECKSUM_BYTES);
    return readSync(fd, bytes, 0, CHECKSUM_BYTES, size - CHECKSUM_BYTES) === CHECKSUM_BYTES
      ? bytes.toString("hex")
      : "unreadable";
  } finally {
    closeSync(fd);
  }
}

/**
 * `prepared` as one file: an index (the key, the small sets and maps, the reports) as Bun's
 * structured-clone bytes (the key holds Bun's version), the kept free providers' packed arrays,
 * then an xxHash3. The evidence pack's lists are not copied: a read maps them from the pack. The
 * overrides are left out: a load's lists have none (`withOverrides` adds them later).
 */
export function encodeServedEmail(key: string, prepared: PreparedEmail): Uint8Array {
  const { free, evidence: _, listed: __, overrides: ___, ...lists } = prepared.lists;
  const index: ServedIndex = {
    key,
    lists: { ...lists, free: { size: free.size, mask: free.mask } },
    dropped: prepared.dropped,
    freeReport: prepared.freeReport,
    present: {
      allowList: prepared.allowList !== null,
      feedAllow: prepared.feedAllow !== null,
      supplement: prepared.supplement !== null,
    },
  };
  return writeChecksummedSections(MAGIC, FORMAT, [
    serialize(index, { binaryType: "nodebuffer" }),
    free.bytes,
    free.starts,
    free.slots,
  ]);
}

/**
 * Writes `prepared` as the served lists of the version at `root`; a version this user may not
 * write keeps none, and neither does one pruned while its lists were made (its folder is not
 * made again).
 */
export function writeServedEmail(root: string, key: string, prepared: PreparedEmail): void {
  try {
    writeFileAtomically(servedEmailFile(root), encodeServedEmail(key, prepared), { makeDirectory: false });
  } catch {
    // Unwritable or gone: each load makes the lists, as before the file.
  }
}

/** What a read of the served lists found. */
export type ServedEmailRead =
  | { readonly prepared: PreparedEmail }
  /** None to read: absent, made for other inputs, or `damaged` (why); `key`: what a file written now is keyed by. */
  | { readonly prepared: null; readonly key: string | null; readonly damaged: string | null };

/**
 * The served lists of the version at `root` under `rule`, when its file was made from exactly
 * what the lists would be made from now; its lists' names and strengths mapped from the
 * evidence pack (a damaged pack is a DatasetError naming it, as at any load).
 */
export function readServedEmail(dataDir: string, root: string, rule: EvidenceRule): ServedEmailRead {
  const key = servedEmailKey(dataDir, root, rule);
  const file = servedEmailFile(root);
  if (key === null || !statSync(file, { throwIfNoEntry: false })?.isFile())
    return { prepared: null, key, damaged: null };
  let decoded: ReturnType<typeof decodeServedEmail>;
  try {
    decoded = decodeServedEmail(mapDataFile(file).bytes);
  } catch (err) {
    return { prepared: null, key, damaged: `${file}: ${(err as Error).message}` };
  }
  if (decoded === null || decoded.index.key !== key) return { prepared: null, key, damaged: null };
  const files = dataFilesAt(dataDir, root);
  const checked = CheckedFiles.of(files.versions);
  const pack = readEvidencePack(files.emailEvidencePack, checked);
  checked.save();
  const { index, free } = decoded;
  const dated = (present: boolean, path: string): FileDate | null => (present ? modifiedOf(path) : null);
  return {
    prepared: {
      lists: {
        ...index.lists,
        free,
        evidence: pack.evidence.sources.map((source) => ({ ...source, entries: source.entries.parts })),
        listed: { exact: pack.exact.parts, wildcard: pack.wildcard.parts },
        overrides: new Map(),
      },
      dropped: index.dropped,
      freeReport: index.freeReport,
      allowList: dated(index.present.allowList, files.allowedDomains),
      feedAllow: dated(index.present.feedAllow, files.feedAllowedDomains),
      supplement: dated(index.present.supplement, files.freeSupplement),
      notes: [],
    },
  };
}

/** The file's modification time, as a load that reads it gives it; a DatasetError when it went since the key was made. */
function modifiedOf(file: string): FileDate {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) throw new DatasetError(file, "missing");
  return { modified: stat.mtime.toISOString() };
}

/**
 * The index and the free set's arrays in `data`; null for a file of another format (another
 * riskcheck's: made again, not damaged); throws saying why when it is damaged.
 */
export function decodeServedEmail(
  data: Uint8Array,
): { index: ServedIndex; free: PreparedEmail["lists"]["free"] } | null {
  const file = readChecksummedSections(data, MAGIC, "a file of served email lists", [FORMAT]);
  if (file === null) return null;
  const index = deserialize(file.section(0, Uint8Array)) as ServedIndex;
  const free = PackedDomainSet.checkedParts({
    ...index.lists.free,
    bytes: file.section(1, Uint8Array),
    starts: file.section(2, Uint32Array),
    slots: file.section(3, Int32Array),
  });
  return { index, free };
}
