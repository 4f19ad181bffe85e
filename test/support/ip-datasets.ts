/**
 * The IP datasets built in the test's own process, the short way: the server gets the same
 * objects from the load Worker (load-snapshot.ts), the tables from `update`.
 */
import type { IpDatasets } from "../../src/ip/answer/ip-facts.ts";
import { compileRecordTable } from "../../src/ip/geo/compile-record-table.ts";
import { CompiledGeolocation } from "../../src/ip/geo/geolocation.ts";
import { geoColumns } from "../../src/ip/geo/mmdb-record.ts";
import { type OpenedMmdb, openMmdb } from "../../src/ip/geo/mmdb.ts";
import type { RecordTableFile } from "../../src/ip/geo/record-table-file.ts";
import type { Thresholds } from "../../src/ip/verdict/reputation.ts";
import { assembleIpDatasets } from "../../src/datasets/load-ip-datasets.ts";
import { prepareInWorker } from "../../src/datasets/load-in-worker.ts";
import type { DatasetInfo } from "../../src/datasets/snapshot.ts";

/** Opens every IP dataset of the version at `root` (default: the current one); throws a DatasetError naming the file when one is missing or broken. */
export async function loadIpDatasets(
  dataDir: string,
  thresholds: Thresholds,
  root?: string,
): Promise<{ ip: IpDatasets; datasets: DatasetInfo[]; notes: string[] }> {
  const prepared = await prepareInWorker(dataDir, root, null);
  return assembleIpDatasets(prepared.ip, thresholds);
}

export interface GeoFiles {
  readonly cityV4: string;
  readonly cityV6: string;
  /** Country-level fallback covering IPv4 and IPv6; null for none. */
  readonly country: string | null;
}

/** A city or country MMDB compiled here, as `update` compiles it. */
export async function compileGeoTable(file: string): Promise<RecordTableFile> {
  return compiledGeo(await openMmdb(file));
}

function compiledGeo(mmdb: OpenedMmdb): RecordTableFile {
  return compileRecordTable(mmdb, geoColumns(mmdb));
}

/** Compiles the MMDB files here and opens them. All open before any is compiled, so a missing one fails at once. */
export async function openGeolocation(files: GeoFiles): Promise<CompiledGeolocation> {
  const [cityV4, cityV6, country] = await Promise.all([
    openMmdb(files.cityV4),
    openMmdb(files.cityV6),
    files.country === null ? null : openMmdb(files.country),
  ]);
  return CompiledGeolocation.open(compiledGeo(cityV4), compiledGeo(cityV6), country && compiledGeo(country));
}
