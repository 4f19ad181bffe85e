import type { IpDatasets } from "../ip/answer/ip-facts.ts";
import { CompiledGeolocation } from "../ip/geo/geolocation.ts";
import { connectionTypeLookup, ownerLookup } from "../ip/geo/network-owner.ts";
import { RecordTable } from "../ip/geo/record-table.ts";
import type { RecordTableFile } from "../ip/geo/record-table-file.ts";
import { AsnIndex } from "../ip/indexes/asn-index.ts";
import { EvidenceIndex } from "../ip/indexes/evidence-index.ts";
import { LabelIndex, NO_LABELS } from "../ip/indexes/label-index.ts";
import { DeclaredLocations, NO_DECLARED_LOCATIONS } from "../ip/indexes/declared-location-index.ts";
import { ReputationIndex } from "../ip/indexes/reputation-index.ts";
import { OverrideTable } from "../ip/overrides/override-table.ts";
import type { Thresholds } from "../ip/verdict/reputation.ts";
import type { PreparedIp, PreparedTable } from "./prepare-datasets.ts";
import type { DatasetInfo } from "./snapshot.ts";
import { nextTurn } from "../time/next-turn.ts";

/**
 * The IP datasets from what the loading Worker prepared: the compiled tables and indexes
 * open as typed arrays over their transferred buffers; of the tables' strings only the few chunks
 * that are UTF-8 are decoded now. An index's bucket tables are its file's; one written before files
 * carried them builds them, a few milliseconds (the ASN index's up to 4 ms of CPU under load): each index is
 * opened on a turn of its own, so that a reload holds up no answer for the sum of them.
 */
export async function assembleIpDatasets(
  p: PreparedIp,
  thresholds: Thresholds,
): Promise<{ ip: IpDatasets; datasets: DatasetInfo[]; notes: string[] }> {
  const cityV4 = p.cityV4.table;
  const cityV6 = p.cityV6?.table ?? null;
  const country = p.country?.table ?? null;
  const owner = p.owner?.table ?? null;
  const connectionType = p.connectionType?.table ?? null;
  const geo = CompiledGeolocation.open(cityV4, cityV6 ?? cityV4, country);
  const ownerTable = owner && RecordTable.open(owner);
  const connectionTable = connectionType && RecordTable.open(connectionType);
  await nextTurn();
  const asn = new AsnIndex(p.asnFile);
  await nextTurn();
  const feeds = new ReputationIndex(p.feedFile);
  const evidence = new Map<string, EvidenceIndex>();
  for (const [name, file] of p.evidence) {
    await nextTurn();
    evidence.set(name, new EvidenceIndex(file));
  }
  await nextTurn();
  const curated = new ReputationIndex(p.curated.ranges);
  const labels = p.labelFile ? new LabelIndex(p.labelFile) : NO_LABELS;
  await nextTurn();
  const info = (name: string, t: PreparedTable, table: RecordTableFile): DatasetInfo => ({
    name,
    file: t.file,
    date: table.meta.buildDate,
  });
  // The indexes' dates are their sources', which the caller has from the manifest.
  const datasets: DatasetInfo[] = [
    info(p.cityV4.name, p.cityV4, cityV4),
    ...(p.cityV6 && cityV6 ? [info("city-ipv6", p.cityV6, cityV6)] : []),
    ...(p.country && country ? [info("country", p.country, country)] : []),
    ...(p.owner && owner ? [info("asn-isp", p.owner, owner)] : []),
    ...(p.connectionType && connectionType ? [info("connection-type", p.connectionType, connectionType)] : []),
    { name: "asn-index", file: p.paths.asnIndex, entries: asn.rangeCount, date: null },
    { name: "reputation-index", file: p.paths.reputationIndex, entries: feeds.rangeCount, date: null },
    ...p.curated.datasets,
  ];
  // The ISO 3166-2 list (~60 ms to import) only for a version that declares locations.
  const locations = p.locationFile
    ? new DeclaredLocations(
        p.locationFile,
        p.curated.regions,
        (await import("../ip/geo/subdivision-codes.ts")).subdivisionNames(),
      )
    : NO_DECLARED_LOCATIONS;
  await nextTurn();
  const overrides = OverrideTable.of(p.curated.allowlist);
  const notes = locations.unplaced.length
    ? [
        ...p.notes,
        `cloud regions with no row in curated/cloud-regions.csv, located by the city database: ${locations.unplaced.join(", ")}`,
      ]
    : p.notes;
  return {
    ip: {
      geo,
      geoSource: p.geoSource,
      asn,
      asnNameKinds: p.asnNameKinds,
      kindsByAsn: p.kindsByAsn,
      asnKindSources: p.asnKindSources,
      feeds,
      evidence,
      curated,
      labels,
      locations,
      thresholds,
      ownerLookup: ownerTable && ownerLookup(ownerTable),
      connectionTypeLookup: connectionTable && connectionTypeLookup(connectionTable),
      allowlistFile: p.curated.allowlist,
      overrides,
    },
    datasets,
    notes,
  };
}
