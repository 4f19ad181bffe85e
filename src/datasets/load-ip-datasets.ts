import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { AsnIndex } from "../ip/indexes/asn-index.ts";
import { MmdbGeolocation } from "../ip/geo/geolocation.ts";
import { type OpenedMmdb, mappedRecords, openMmdb } from "../ip/geo/mmdb.ts";
import { connectionTypeOfRecord, ownerOfRecord } from "../ip/geo/network-owner.ts";
import type { IpDatasets } from "../ip/answer/ip-facts.ts";
import { kindBit, kindsOfNetwork } from "../ip/verdict/network-kinds.ts";
import { EvidenceIndex } from "../ip/indexes/evidence-index.ts";
import { readIndexFile } from "../ip/indexes/range-index-file.ts";
import { LabelIndex, NO_LABELS } from "../ip/indexes/label-index.ts";
import { NO_RELAY_PLACES, RelayPlaces } from "../ip/indexes/relay-place-index.ts";
import { ReputationIndex } from "../ip/indexes/reputation-index.ts";
import type { Thresholds } from "../ip/verdict/reputation.ts";
import { loadCuratedData } from "./curated-data.ts";
import { dataFilesAt } from "./data-layout.ts";
import { DatasetError } from "./dataset-error.ts";
import type { DatasetInfo } from "./snapshot.ts";

interface OperatorMmdbs {
  city: OpenedMmdb | null;
  country: OpenedMmdb | null;
  owner: OpenedMmdb | null;
  connectionType: OpenedMmdb | null;
}

/** MMDBs dropped into data/mmdb/, sorted by what their metadata says they are. */
async function openOperatorMmdbs(dir: string): Promise<OperatorMmdbs> {
  const found: OperatorMmdbs = { city: null, country: null, owner: null, connectionType: null };
  if (!existsSync(dir)) return found;
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".mmdb")).sort()) {
    const mmdb = await openMmdb(join(dir, name));
    const type = mmdb.databaseType;
    const slot: keyof OperatorMmdbs | null = /connection-type/i.test(type)
      ? "connectionType"
      : /\b(asn|isp)\b|-ASN|-ISP/i.test(type)
        ? "owner"
        : /city|location/i.test(type)
          ? "city"
          : /country/i.test(type)
            ? "country"
            : null;
    if (slot === null) throw new DatasetError(mmdb.file, `database type "${type}" is not one riskcheck reads (City, Country, ASN, ISP or Connection-Type)`, "remove the file");
    if (found[slot]) throw new DatasetError(mmdb.file, `a second ${slot} database beside ${found[slot]!.file}`, "keep only one");
    found[slot] = mmdb;
  }
  return found;
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
    return Object.entries(document as Record<string, number[]>).map(([kind, asns]) => ({ source: "feeds", kind, asns }));
  } catch (err) {
    throw new DatasetError(file, `not valid JSON (${(err as Error).message})`, 'run "riskcheck update" or "riskcheck update --rollback"');
  }
}

/** One evidence index per IP list of the version, by source name. */
async function readEvidence(dir: string): Promise<Map<string, EvidenceIndex>> {
  const evidence = new Map<string, EvidenceIndex>();
  if (!existsSync(dir)) return evidence;
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".idx"))) {
    evidence.set(name.slice(0, -4), new EvidenceIndex(await readIndexFile(join(dir, name), "evidence")));
  }
  return evidence;
}

/**
 * Opens every IP dataset; throws a DatasetError naming the file when one is missing or
 * broken. Every record of every MaxMind DB file is decoded, checked and mapped here, once.
 */
export async function loadIpDatasets(dataDir: string, thresholds: Thresholds, root?: string): Promise<{ ip: IpDatasets; datasets: DatasetInfo[]; notes: string[] }> {
  const files = dataFilesAt(dataDir, root);
  const operator = await openOperatorMmdbs(files.operatorMmdbDir);
  // An ASN/ISP database that `update` fetched serves when the operator has none of their own.
  if (!operator.owner && existsSync(files.asnIsp)) operator.owner = await openMmdb(files.asnIsp);
  const [cityV4, cityV6, country] = operator.city
    ? [operator.city, operator.city, operator.country]
    : await Promise.all([openMmdb(files.cityV4), openMmdb(files.cityV6), operator.country ? Promise.resolve(operator.country) : openMmdb(files.country)]);
  const optionalIndex = (file: string, kind: "labels" | "places") => (existsSync(file) ? readIndexFile(file, kind) : null);
  const [geo, ownerLookup, connectionTypeLookup, asnFile, feedFile, curated, feedAsnKinds, evidence, labelFile, relayFile] = await Promise.all([
    MmdbGeolocation.build(cityV4, cityV6, country),
    operator.owner && mappedRecords(operator.owner, ownerOfRecord),
    operator.connectionType && mappedRecords(operator.connectionType, connectionTypeOfRecord),
    readIndexFile(files.asnIndex, "asn"),
    readIndexFile(files.reputationIndex, "reputation"),
    loadCuratedData(files),
    readFeedAsnKinds(files.feedAsnKinds),
    readEvidence(files.evidence),
    optionalIndex(files.infrastructureLabels, "labels"),
    optionalIndex(files.relayPlaces, "places"),
  ]);

  const asnKindSources = curated.asnKindSources;
  for (const { source, kind, asns } of feedAsnKinds) {
    for (const asn of asns) asnKindSources.set(asn, [...(asnKindSources.get(asn) ?? []), { bits: kindBit(kind), source }]);
  }
  const kindsByAsn = new Map([...asnKindSources].map(([asn, sources]) => [asn, sources.reduce((bits, s) => bits | s.bits, 0)]));
  const asn = new AsnIndex(asnFile);
  const asnKinds = new Uint8Array(asn.entryCount);
  for (let entry = 0; entry < asn.entryCount; entry++) {
    asnKinds[entry] = kindsOfNetwork(kindsByAsn.get(asn.asn(entry)) ?? 0, asn.organization(entry));
  }

  const feeds = new ReputationIndex(feedFile);
  const mmdbInfo = (name: string, m: OpenedMmdb): DatasetInfo => ({ name, file: m.file, date: m.buildDate });
  // The indexes' dates are their sources', which the caller has from the manifest.
  const datasets: DatasetInfo[] = [
    mmdbInfo(operator.city ? "city" : "city-ipv4", cityV4),
    ...(operator.city ? [] : [mmdbInfo("city-ipv6", cityV6)]),
    ...(country ? [mmdbInfo("country", country)] : []),
    ...(operator.owner ? [mmdbInfo("asn-isp", operator.owner)] : []),
    ...(operator.connectionType ? [mmdbInfo("connection-type", operator.connectionType)] : []),
    { name: "asn-index", file: files.asnIndex, entries: asn.rangeCount, date: null },
    { name: "reputation-index", file: files.reputationIndex, entries: feeds.rangeCount, date: null },
    ...curated.datasets,
  ];
  return {
    ip: {
      geo,
      asn,
      asnKinds,
      kindsByAsn,
      asnKindSources,
      feeds,
      evidence,
      curated: new ReputationIndex(curated.ranges),
      labels: labelFile ? new LabelIndex(labelFile) : NO_LABELS,
      relayPlaces: relayFile ? new RelayPlaces(relayFile) : NO_RELAY_PLACES,
      thresholds,
      ownerLookup,
      connectionTypeLookup,
    },
    datasets,
    notes: curated.expired ? [`operator IP lists: left out ${curated.expired} entries whose "until" date has passed`] : [],
  };
}
