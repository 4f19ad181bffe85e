import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { TableColumns } from "../ip/geo/compile-record-table.ts";
import type { OpenedMmdb } from "../ip/geo/mmdb.ts";
import { OWNER_COLUMNS } from "../ip/geo/network-owner.ts";
import {
  RECORD_TABLE_LAYOUT,
  type RecordTableFile,
  encodeRecordTableFile,
  readRecordTableFile,
} from "../ip/geo/record-table-file.ts";
import { versionFiles } from "./data-layout.ts";
import { DatasetError } from "../ip/dataset-error.ts";
import { eachPiece, mapDataFile } from "../ip/mapped-file.ts";
import { type CompiledTable, type Manifest, type OutputRecord, readManifest, writeManifest } from "./manifest.ts";
import { linkOrCopy, writeFileAtomically } from "./staged-files.ts";
import { CheckedFiles } from "./checked-files.ts";

type VersionFile = keyof ReturnType<typeof versionFiles>;

/** The outputs `serve` reads through a compiled table: the MMDB, its table and what the table keeps. */
const TABLE_OUTPUTS = {
  "city-ipv4": { mmdb: "cityV4", table: "cityV4Table", columns: "geo" },
  "city-ipv6": { mmdb: "cityV6", table: "cityV6Table", columns: "geo" },
  country: { mmdb: "country", table: "countryTable", columns: "geo" },
  "asn-isp": { mmdb: "asnIsp", table: "asnIspTable", columns: "owner" },
} as const satisfies Record<string, { mmdb: VersionFile; table: VersionFile; columns: "geo" | "owner" }>;
export type TableOutput = keyof typeof TABLE_OUTPUTS;

/**
 * The MMDB reader (maxmind) and the compiler, imported when an MMDB is read: a load that maps
 * its compiled tables needs neither, and importing them was ~45 ms of a start's CPU.
 */
export async function tableCompiler() {
  const [{ openMmdb, parseMmdb }, { compileRecordTable }, { geoColumns }] = await Promise.all([
    import("../ip/geo/mmdb.ts"),
    import("../ip/geo/compile-record-table.ts"),
    import("../ip/geo/mmdb-record.ts"),
  ]);
  const columnsFor = (kind: "geo" | "owner", mmdb: OpenedMmdb): TableColumns =>
    kind === "geo" ? geoColumns(mmdb) : OWNER_COLUMNS;
  return { openMmdb, parseMmdb, compileRecordTable, geoColumns, columnsFor };
}

function sha256Of(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

/** The file's CRC-32, and its SHA-256 when asked (tables recorded before CRC-32s), in one read. */
function sumsOf(file: string, withSha256: boolean): { crc32: number; sha256: string | null } {
  let crc32 = 0;
  const sha256 = withSha256 ? new Bun.CryptoHasher("sha256") : null;
  eachPiece(file, (piece) => {
    crc32 = Bun.hash.crc32(piece, crc32);
    sha256?.update(piece);
  });
  return { crc32, sha256: sha256?.digest("hex") ?? null };
}

function sameBytes(file: string, other: string): boolean {
  return existsSync(other) && readFileSync(file).equals(readFileSync(other));
}

/** Writes a table into the version folder; what the manifest records of it. */
function writeTable(root: string, output: TableOutput, bytes: Uint8Array): CompiledTable {
  const file = versionFiles(root)[TABLE_OUTPUTS[output].table];
  writeFileAtomically(file, bytes);
  return {
    file: relative(root, file),
    sha256: sha256Of(bytes),
    crc32: Bun.hash.crc32(bytes),
    bytes: bytes.byteLength,
    layout: RECORD_TABLE_LAYOUT,
  };
}

/**
 * `update`'s compile step: every MMDB output of the staged version gets its table. An
 * output carried over unchanged, or rebuilt (`--force`) into the same bytes as the current
 * version's MMDB, keeps the current version's table (a hard link) when it is of this layout
 * and its CRC-32 is still the one recorded; any other is compiled, which decodes and checks
 * every record (seconds for the bundled city data).
 */
export async function compileVersionTables(
  staging: string,
  records: Record<string, OutputRecord>,
  rebuilt: ReadonlySet<string>,
  current: { readonly root: string; readonly manifest: Manifest } | null,
): Promise<Record<string, OutputRecord>> {
  const { parseMmdb, compileRecordTable, columnsFor } = await tableCompiler();
  const out = { ...records };
  for (const name of Object.keys(TABLE_OUTPUTS) as TableOutput[]) {
    const record = records[name];
    if (!record) continue;
    const spec = TABLE_OUTPUTS[name];
    const mmdbFile = versionFiles(staging)[spec.mmdb];
    const kept = current?.manifest.outputs[name]?.compiled;
    if (current && kept?.layout === RECORD_TABLE_LAYOUT) {
      const keptFile = join(current.root, kept.file);
      if (
        existsSync(keptFile) &&
        (!rebuilt.has(name) || sameBytes(mmdbFile, versionFiles(current.root)[spec.mmdb])) &&
        (kept.crc32 === undefined || sumsOf(keptFile, false).crc32 === kept.crc32)
      ) {
        linkOrCopy(keptFile, join(staging, kept.file));
        out[name] = { ...record, compiled: kept };
        continue;
      }
    }
    const mmdb = parseMmdb(readFileSync(mmdbFile), mmdbFile);
    out[name] = {
      ...record,
      compiled: writeTable(
        staging,
        name,
        encodeRecordTableFile(compileRecordTable(mmdb, columnsFor(spec.columns, mmdb))),
      ),
    };
  }
  return out;
}

/**
 * A table for serving, its arrays views of the mapped file; `compiled` when the manifest should record it anew:
 * compiled first and saved, or given its CRC-32 (see `recordTables`).
 */
export interface ReadTable {
  readonly table: RecordTableFile;
  readonly compiled?: CompiledTable;
  readonly note: string | null;
}

/**
 * The output's table: its file checked against the manifest's CRC-32 and mapped, nothing
 * copied (a damaged file is refused, naming it). A table recorded before CRC-32s is checked by its
 * SHA-256 and comes back with its CRC-32 as `compiled`, to be recorded. For a version written
 * before tables of this layout, or without a manifest, compiled from the MMDB and, where the
 * folder is writable, saved.
 */
export async function readVersionTable(
  root: string,
  manifest: Manifest | null,
  output: TableOutput,
  checked: CheckedFiles,
): Promise<ReadTable> {
  const spec = TABLE_OUTPUTS[output];
  const recorded = manifest?.outputs[output]?.compiled;
  const file = recorded && join(root, recorded.file);
  if (recorded && file && recorded.layout === RECORD_TABLE_LAYOUT && existsSync(file)) {
    const bySha256 = recorded.crc32 === undefined;
    const unchanged = !bySha256 && checked.passed(file, `crc32:${recorded.crc32}`);
    // The sums are of the file as read, so that they touch none of the mapping's pages: only lookups do.
    const { crc32, sha256 } = unchanged ? { crc32: recorded.crc32!, sha256: null } : sumsOf(file, bySha256);
    const { bytes, mapped } = mapDataFile(file);
    try {
      const intact =
        bytes.byteLength === recorded.bytes &&
        (unchanged || (bySha256 ? sha256 === recorded.sha256 : crc32 === recorded.crc32));
      if (!intact)
        throw new DatasetError(
          file,
          `damaged compiled table (its ${bySha256 ? "SHA-256" : "CRC-32"} is not the one the manifest records)`,
        );
      if (!unchanged) checked.note(file, `crc32:${crc32}`);
      return {
        table: readRecordTableFile(bytes, file),
        note: mapped ? null : `${file} is read into memory: this user may not open it for writing, which mapping needs`,
        ...(bySha256 ? { compiled: { ...recorded, crc32 } } : {}),
      };
    } catch (err) {
      if (err instanceof DatasetError)
        throw new DatasetError(file, err.problem.replace(/^corrupt /, "damaged "), refix(root, spec.mmdb));
      throw err;
    }
  }
  const mmdbFile = versionFiles(root)[spec.mmdb];
  const { openMmdb, compileRecordTable, columnsFor } = await tableCompiler();
  const mmdb = await openMmdb(mmdbFile);
  const table = compileRecordTable(mmdb, columnsFor(spec.columns, mmdb));
  if (!manifest)
    return { table, note: `compiled ${mmdbFile} in memory: its version has no manifest to record a table in` };
  try {
    const compiled = writeTable(root, output, encodeRecordTableFile(table));
    return {
      table,
      compiled,
      note: `compiled ${compiled.file} from ${mmdbFile} (the version had no table of layout ${RECORD_TABLE_LAYOUT}); later loads read it`,
    };
  } catch (err) {
    return { table, note: `compiled ${mmdbFile} in memory; could not save its table (${(err as Error).message})` };
  }
}

/** Records tables compiled on load in the version's manifest, so the next load reads them. */
export async function recordTables(root: string, compiled: ReadonlyMap<TableOutput, CompiledTable>): Promise<void> {
  if (compiled.size === 0) return;
  const file = versionFiles(root).manifest;
  const manifest = await readManifest(file);
  if (!manifest) return;
  const outputs = { ...manifest.outputs };
  for (const [output, table] of compiled)
    outputs[output] = { ...(outputs[output] ?? { count: 0, sources: [] }), compiled: table };
  writeManifest(file, { ...manifest, outputs });
}

/** What to do about a damaged table: a missing one is compiled again from its MMDB. */
function refix(root: string, mmdb: VersionFile): string {
  return `remove it to have it compiled again from ${versionFiles(root)[mmdb]} on the next load, or run "riskcheck update --rollback"`;
}

/**
 * Compiles and records every table the version lacks, and the CRC-32 of every table recorded
 * without one (a version written by an older riskcheck), as its first load would: the
 * postinstall step does it for the current version so that the first `serve` after an
 * upgrade maps at once. Lines for the log.
 */
export async function compileMissingTables(root: string): Promise<string[]> {
  const manifest = await readManifest(versionFiles(root).manifest);
  if (!manifest) return [];
  const compiled = new Map<TableOutput, CompiledTable>();
  const notes: string[] = [];
  const checked = CheckedFiles.of(dirname(root));
  for (const output of Object.keys(TABLE_OUTPUTS) as TableOutput[]) {
    if (!manifest.outputs[output] || !existsSync(versionFiles(root)[TABLE_OUTPUTS[output].mmdb])) continue;
    const table = await readVersionTable(root, manifest, output, checked);
    if (table.compiled) compiled.set(output, table.compiled);
    if (table.note) notes.push(table.note);
  }
  await recordTables(root, compiled);
  checked.save();
  return notes;
}
