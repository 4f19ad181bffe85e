import { existsSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import type { EvidenceRule } from "../email/evidence-rule.ts";
import { CONNECTION_TYPE_COLUMNS, OWNER_COLUMNS } from "../ip/geo/network-owner.ts";
import type { RecordTableFile } from "../ip/geo/record-table-file.ts";
import { asnNameKinds } from "../ip/indexes/asn-index.ts";
import { type IndexFile, type IndexKind, readIndexFile } from "../ip/indexes/range-index-file.ts";
import { kindBit } from "../ip/verdict/network-kinds.ts";
import { CheckedFiles } from "./checked-files.ts";
import { type CuratedData, loadCuratedData } from "./curated-data.ts";
import type { AsnKindSource } from "../ip/verdict/network-kinds.ts";
import { type TableOutput, readVersionTable, recordTables, tableCompiler } from "./compiled-tables.ts";
import type { CompiledTable } from "./manifest.ts";
import { dataFilesAt, versionFiles } from "./data-layout.ts";
import { DatasetError } from "../ip/dataset-error.ts";
import { type Manifest, readManifest } from "./manifest.ts";
import { prepareEmailPart } from "./prepare-email.ts";
import type { PreparedEmail } from "./prepared-email.ts";

/** One compiled table ready to open, and what the datasets list says of its database. */
export interface PreparedTable {
  readonly table: RecordTableFile;
  /** The MMDB it was compiled from. */
  readonly file: string;
}

/**
 * Everything heavy of a load, done off the serving thread (`load-worker.ts`): files read
 * and checked, tables compiled where a version lacks them, lists normalised and packed,
 * kinds computed. Only plain data and typed arrays, so it crosses to the serving thread
 * with the arrays' buffers transferred; `assembleIpDatasets` and `assembleEmailLists`
 * make the objects.
 */
export interface PreparedDatasets {
  readonly manifest: Manifest | null;
  readonly ip: PreparedIp;
  readonly email: PreparedEmail | null;
}

export interface PreparedIp {
  /** City tables; `cityV6` null when the operator's one city database serves both families. */
  readonly cityV4: PreparedTable & { readonly name: string };
  readonly cityV6: PreparedTable | null;
  /** What explanations call the city database: "geolite2", another source's name, or the operator's file. */
  readonly geoSource: string;
  readonly country: PreparedTable | null;
  readonly owner: PreparedTable | null;
  readonly connectionType: PreparedTable | null;
  readonly asnFile: IndexFile;
  readonly paths: { readonly asnIndex: string; readonly reputationIndex: string };
  readonly asnNameKinds: Uint8Array;
  readonly kindsByAsn: Map<number, number>;
  readonly asnKindSources: Map<number, AsnKindSource[]>;
  readonly feedFile: IndexFile;
  readonly evidence: [string, IndexFile][];
  /** Infrastructure labels and declared locations, where the version has them. */
  readonly labelFile: IndexFile | null;
  readonly locationFile: IndexFile | null;
  readonly curated: CuratedData;
  readonly notes: string[];
}

type OperatorSlot = "city" | "country" | "owner" | "connectionType";

/**
 * MMDBs dropped into data/mmdb/, sorted by what their metadata says they are, each compiled:
 * they live outside the versions `update` writes, so every load compiles them.
 */
async function operatorTables(dir: string): Promise<Record<OperatorSlot, PreparedTable | null>> {
  const found: Record<OperatorSlot, PreparedTable | null> = {
    city: null,
    country: null,
    owner: null,
    connectionType: null,
  };
  const names = existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith(".mmdb")) : [];
  if (names.length === 0) return found;
  const { openMmdb, compileRecordTable, geoColumns } = await tableCompiler();
  for (const name of names.sort()) {
    const mmdb = await openMmdb(join(dir, name));
    const type = mmdb.databaseType;
    const slot: OperatorSlot | null = /connection-type/i.test(type)
      ? "connectionType"
      : /\b(asn|isp)\b|-ASN|-ISP/i.test(type)
        ? "owner"
        : /city|location/i.test(type)
          ? "city"
          : /country/i.test(type)
            ? "country"
            : null;
    if (slot === null)
      throw new DatasetError(
        mmdb.file,
        `database type "${type}" is not one riskcheck reads (City, Country, ASN, ISP or Connection-Type)`,
        "remove the file",
      );
    if (found[slot])
      throw new DatasetError(mmdb.file, `a second ${slot} database beside ${found[slot]!.file}`, "keep only one");
    const columns =
      slot === "owner" ? OWNER_COLUMNS : slot === "connectionType" ? CONNECTION_TYPE_COLUMNS : geoColumns(mmdb);
    found[slot] = { table: compileRecordTable(mmdb, columns), file: mmdb.file };
  }
  return found;
}

/** The city database serving: the operator's file, else the source of the version's city-ipv4 (any GeoLite2 copy is "geolite2"). */
function geoSourceName(operatorCity: PreparedTable | null, manifest: Manifest | null): string {
  if (operatorCity) return `mmdb/${basename(operatorCity.file)}`;
  const source = manifest?.outputs["city-ipv4"]?.sources[0] ?? "geolite2";
  return source.includes("geolite2") ? "geolite2" : source;
}

/**
 * The AS-number lists `update` compiled from feeds, as `[{source, kind, asns}]` (older
 * versions wrote `{kind: asns}`); absent before the first update.
 */
async function readFeedAsnKinds(file: string): Promise<{ source: string; kind: string; asns: number[] }[]> {
  if (!existsSync(file)) return [];
  try {
    const document = (await Bun.file(file).json()) as unknown;
    if (Array.isArray(document)) return document as { source: string; kind: string; asns: number[] }[];
    return Object.entries(document as Record<string, number[]>).map(([kind, asns]) => ({
      source: "feeds",
      kind,
      asns,
    }));
  } catch (err) {
    throw new DatasetError(
      file,
      `not valid JSON (${(err as Error).message})`,
      'run "riskcheck update" or "riskcheck update --rollback"',
    );
  }
}

/** The index at `file`, its ranges' order checked unless the record says it was on this very file. */
async function readCheckedIndex(file: string, kind: IndexKind, checked: CheckedFiles): Promise<IndexFile> {
  const check = `ranges:${kind}`;
  const ordered = checked.passed(file, check);
  const index = await readIndexFile(file, kind, ordered);
  if (!ordered) checked.note(file, check);
  return index;
}

/** One evidence index per IP list of the version, by source name. */
async function readEvidence(dir: string, checked: CheckedFiles): Promise<[string, IndexFile][]> {
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir).filter((n) => n.endsWith(".idx"));
  return Promise.all(
    names.map(
      async (name): Promise<[string, IndexFile]> => [
        name.slice(0, -4),
        await readCheckedIndex(join(dir, name), "evidence", checked),
      ],
    ),
  );
}

/**
 * Reads every dataset of the version at `root` (default: the one `current` names) and the
 * operator's files, the email lists too unless `emailRule` is null; throws a DatasetError naming the file when one is missing or broken.
 */
export async function prepareDatasets(
  dataDir: string,
  root: string | undefined,
  emailRule: EvidenceRule | null,
): Promise<PreparedDatasets> {
  // The lists first, and their temporaries collected, before the tables' buffers come in: the load peaks lower.
  const email = emailRule === null ? null : await prepareEmailPart(dataDir, root, emailRule);
  if (email) Bun.gc(true);
  return { ...(await prepareIpPart(dataDir, root)), email };
}

/** The IP half of a load: the version's manifest and its IP datasets, with the operator's files. */
export type PreparedIpPart = Omit<PreparedDatasets, "email">;

/** `prepareDatasets` without the email lists. */
export async function prepareIpPart(dataDir: string, root: string | undefined): Promise<PreparedIpPart> {
  const files = dataFilesAt(dataDir, root);
  const manifest = await readManifest(files.manifest);
  return { manifest, ip: await prepareIp(root ?? files.current, manifest, files) };
}

async function prepareIp(
  versionRoot: string,
  manifest: Manifest | null,
  files: ReturnType<typeof dataFilesAt>,
): Promise<PreparedIp> {
  const notes: string[] = [];
  const operator = await operatorTables(files.operatorMmdbDir);
  const compiled = new Map<TableOutput, CompiledTable>();
  const checked = CheckedFiles.of(files.versions);
  const version = async (output: TableOutput, file: string): Promise<PreparedTable> => {
    const table = await readVersionTable(versionRoot, manifest, output, checked);
    if (table.note) notes.push(table.note);
    if (table.compiled) compiled.set(output, table.compiled);
    return { table: table.table, file };
  };
  const vf = versionFiles(versionRoot);
  const [cityV4, cityV6, country, owner] = await Promise.all([
    operator.city
      ? { ...operator.city, name: "city" }
      : version("city-ipv4", files.cityV4).then((t) => ({ ...t, name: "city-ipv4" })),
    operator.city ? null : version("city-ipv6", files.cityV6),
    operator.country ?? version("country", files.country),
    // An ASN/ISP database that `update` fetched serves when the operator has none of their own.
    operator.owner ?? (existsSync(vf.asnIsp) ? version("asn-isp", files.asnIsp) : null),
  ]);
  await recordTables(versionRoot, compiled);
  const connectionType = operator.connectionType;
  const optionalIndex = (file: string, kind: "labels" | "places") =>
    existsSync(file) ? readCheckedIndex(file, kind, checked) : null;
  const [asnFile, feedFile, curated, feedAsnKinds, evidence, labelFile, locationFile] = await Promise.all([
    readCheckedIndex(files.asnIndex, "asn", checked),
    readCheckedIndex(files.reputationIndex, "reputation", checked),
    loadCuratedData(files),
    readFeedAsnKinds(files.feedAsnKinds),
    readEvidence(files.evidence, checked),
    optionalIndex(files.infrastructureLabels, "labels"),
    // A version built before cloud regions were read has its relay places alone, in rows of the same form.
    optionalIndex(existsSync(files.declaredLocations) ? files.declaredLocations : files.relayPlaces, "places"),
  ]);
  checked.save();
  const asnKindSources = curated.asnKindSources;
  for (const { source, kind, asns } of feedAsnKinds) {
    for (const asn of asns)
      asnKindSources.set(asn, [...(asnKindSources.get(asn) ?? []), { bits: kindBit(kind), source }]);
  }
  const kindsByAsn = new Map(
    [...asnKindSources].map(([asn, sources]) => [asn, sources.reduce((bits, s) => bits | s.bits, 0)]),
  );
  if (curated.regions.size === 0)
    notes.push(
      "curated/cloud-regions.csv is missing or empty: cloud ranges are located by the city database; restore it " +
        "from the project's data/curated/ (the binary writes it again at its next start)",
    );
  if (curated.expired)
    notes.push(`operator IP lists: left out ${curated.expired} entries whose "until" date has passed`);
  if (curated.rangesDamaged)
    notes.push(`${curated.rangesDamaged}: the curated ranges were compiled again and the file written anew`);
  const paths = { asnIndex: files.asnIndex, reputationIndex: files.reputationIndex };
  return {
    cityV4,
    cityV6,
    country,
    owner,
    connectionType,
    asnFile,
    paths,
    asnNameKinds: asnNameKinds(asnFile),
    kindsByAsn,
    asnKindSources,
    feedFile,
    evidence,
    labelFile,
    locationFile,
    curated,
    notes,
    geoSource: geoSourceName(operator.city, manifest),
  };
}
