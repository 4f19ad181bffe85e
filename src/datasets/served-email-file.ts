import { join } from "node:path";
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import type { EvidenceRule } from "../email/evidence-rule.ts";
import { DatasetError } from "../ip/dataset-error.ts";
import { mapDataFile } from "../ip/mapped-file.ts";
import { writeSectionedFile } from "../ip/sectioned-file.ts";
import { BUILD_INFO } from "../runtime/build-info.ts";
import { codeDigest } from "../runtime/code-digest.ts";
import { CheckedFiles } from "./checked-files.ts";
import { dataFilesAt } from "./data-layout.ts";
import { readEvidencePack } from "./email-evidence-pack.ts";
import { writeFileAtomically } from "./staged-files.ts";
import type { FileDate, PreparedEmail } from "./prepared-email.ts";

const MAGIC = 0x4c455352; // "RSEL" little-endian: riskcheck served email lists
const FORMAT = 1;
const HEADER_WORDS = 3;
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

/** What `PreparedEmail` holds besides the free set's arrays and what the evidence pack gives, in JSON. */
type ServedIndex = Omit<PreparedEmail, "lists" | "allowList" | "feedAllow" | "supplement" | "notes"> & {
  readonly key: string;
  readonly lists: Omit<
    PreparedEmail["lists"],
    | "free"
    | "evidence"
    | "listed"
    | "disposableSuffixes"
    | "disposableWildcard"
    | "families"
    | "allow"
    | "overrides"
    | "heldBack"
    | "freeSupplement"
    | "allowReasons"
    | "mailServers"
  > & {
    readonly free: { readonly size: number; readonly mask: number };
    readonly disposableSuffixes: string[];
    readonly disposableWildcard: string[];
    readonly families: [string, number][];
    readonly allow: string[];
    readonly heldBack: string[];
    readonly freeSupplement: string[];
    readonly allowReasons: [string, string][];
    readonly mailServers: {
      readonly hosts: [string, { domains: number; examples: readonly string[] }][];
      readonly addresses: [string, { domains: number; examples: readonly string[] }][];
      readonly exempt: [string, string][];
      readonly observed: number;
    };
  };
  /** Which of the three optional text files were there. */
  readonly present: { readonly allowList: boolean; readonly feedAllow: boolean; readonly supplement: boolean };
};

/** Where a version keeps its served email lists. */
export function servedEmailFile(root: string): string {
  return join(root, "email", "served.pack");
}

let listsCode: string | undefined;

/** The code that makes the served lists: the binary's, as build.ts worked it out; from source, the sources now. */
function emailListsCode(): string {
  return (listsCode ??= BUILD_INFO?.emailListsCode ?? codeDigest(join(import.meta.dir, "prepare-email.ts")));
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
    `code ${emailListsCode()}`,
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
 * `prepared` as one file: a JSON index (the key, the small sets and maps, the reports), the kept
 * free providers' packed arrays, then an xxHash3 of everything before it. The evidence pack's
 * lists are not copied: a read maps them from the pack.
 */
export function encodeServedEmail(key: string, prepared: PreparedEmail): Uint8Array {
  const { free, evidence: _, listed: __, overrides: ___, ...l } = prepared.lists;
  const index: ServedIndex = {
    key,
    lists: {
      ...l,
      free: { size: free.size, mask: free.mask },
      disposableSuffixes: [...l.disposableSuffixes],
      disposableWildcard: [...l.disposableWildcard],
      families: [...l.families],
      allow: [...l.allow],
      heldBack: [...l.heldBack],
      freeSupplement: [...l.freeSupplement],
      allowReasons: [...l.allowReasons],
      mailServers: {
        hosts: [...l.mailServers.hosts],
        addresses: [...l.mailServers.addresses],
        exempt: [...l.mailServers.exempt],
        observed: l.mailServers.observed,
      },
    },
    dropped: prepared.dropped,
    freeReport: prepared.freeReport,
    present: {
      allowList: prepared.allowList !== null,
      feedAllow: prepared.feedAllow !== null,
      supplement: prepared.supplement !== null,
    },
  };
  const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const sections = [
    new TextEncoder().encode(JSON.stringify(index)),
    ...[free.bytes, free.starts, free.slots].map(bytesOf),
  ];
  const body = writeSectionedFile([MAGIC, FORMAT, sections.length], sections);
  const out = new Uint8Array(body.length + CHECKSUM_BYTES);
  out.set(body);
  new DataView(out.buffer).setBigUint64(body.length, Bun.hash.xxHash3(body), true);
  return out;
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
  const l = index.lists;
  const dated = (present: boolean, path: string): FileDate | null => (present ? modifiedOf(path) : null);
  return {
    prepared: {
      lists: {
        ...l,
        free,
        evidence: pack.evidence.sources.map((source) => ({ ...source, entries: source.entries.parts })),
        listed: { exact: pack.exact.parts, wildcard: pack.wildcard.parts },
        disposableSuffixes: new Set(l.disposableSuffixes),
        disposableWildcard: new Set(l.disposableWildcard),
        families: new Map(l.families),
        allow: new Set(l.allow),
        overrides: new Map(),
        heldBack: new Set(l.heldBack),
        freeSupplement: new Set(l.freeSupplement),
        allowReasons: new Map(l.allowReasons),
        mailServers: {
          hosts: new Map(l.mailServers.hosts),
          addresses: new Map(l.mailServers.addresses),
          exempt: new Map(l.mailServers.exempt),
          observed: l.mailServers.observed,
        },
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
  if (data.byteLength < HEADER_WORDS * 4 + CHECKSUM_BYTES) throw new Error("too short");
  const bodyLength = data.byteLength - CHECKSUM_BYTES;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new Error("not a file of served email lists");
  if (view.getUint32(4, true) !== FORMAT) return null;
  if (view.getBigUint64(bodyLength, true) !== Bun.hash.xxHash3(data.subarray(0, bodyLength)))
    throw new Error("its checksum does not match");
  const count = view.getUint32(8, true);
  if (count !== 4 || (HEADER_WORDS + count * 2) * 4 > bodyLength) throw new Error("the wrong number of sections");
  const section = (n: number, bytesPer: number) => {
    const at = (HEADER_WORDS + n * 2) * 4;
    const offset = view.getUint32(at, true);
    const length = view.getUint32(at + 4, true);
    if (offset % 8 !== 0 || offset + length > bodyLength || length % bytesPer !== 0)
      throw new Error("a section lies outside the file");
    return { offset: data.byteOffset + offset, length: length / bytesPer };
  };
  const json = section(0, 1);
  const index = JSON.parse(
    new TextDecoder().decode(new Uint8Array(data.buffer, json.offset, json.length)),
  ) as ServedIndex;
  const { size, mask } = index.lists.free;
  const b = section(1, 1);
  const s = section(2, 4);
  const t = section(3, 4);
  const free = {
    size,
    mask,
    bytes: new Uint8Array(data.buffer, b.offset, b.length),
    starts: new Uint32Array(data.buffer, s.offset, s.length),
    slots: new Int32Array(data.buffer, t.offset, t.length),
  };
  if (free.starts.length !== size + 1 || free.starts[size] !== free.bytes.length)
    throw new Error("the free providers' names do not fit their offsets");
  if (free.slots.length !== (mask + 1) * 2 || (mask & (mask + 1)) !== 0 || mask + 1 < size)
    throw new Error("the free providers' table has the wrong size");
  return { index, free };
}
