import { join } from "node:path";

/** The generated files of one dataset version, under `root` (`current`, a staging folder …). */
export function versionFiles(root: string) {
  return {
    root,
    manifest: join(root, "manifest.json"),
    raw: join(root, "raw"),
    disposableDomains: join(root, "email", "disposable.txt"),
    disposableWildcards: join(root, "email", "disposable-wildcard.txt"),
    freeDomains: join(root, "email", "free.txt"),
    feedAllowedDomains: join(root, "email", "allowlist.txt"),
    /** One file per disposable list, `<source>.txt`: each name it lists and since when. */
    emailEvidence: join(root, "email", "evidence"),
    /** The disposable lists compiled by `update` (each list's packed names, every listed name's strength). */
    emailEvidencePack: join(root, "email", "evidence.pack"),
    /** Known disposable domains' mail servers, as `update` resolved them with DNS evidence on (mail-servers-file.ts). */
    mailServers: join(root, "email", "mail-servers.txt"),
    /** Disputed names `update` held back from the disposable lists. */
    disputedDomains: join(root, "email", "disputed.txt"),
    cityV4: join(root, "geo", "city-ipv4.mmdb"),
    cityV6: join(root, "geo", "city-ipv6.mmdb"),
    country: join(root, "geo", "country.mmdb"),
    asnIsp: join(root, "geo", "asn-isp.mmdb"),
    /** The MMDBs compiled for serving (`update`), checked by the SHA-256 the manifest records. */
    cityV4Table: join(root, "geo", "city-ipv4.table"),
    cityV6Table: join(root, "geo", "city-ipv6.table"),
    countryTable: join(root, "geo", "country.table"),
    asnIspTable: join(root, "geo", "asn-isp.table"),
    asnIndex: join(root, "ip", "asn.idx"),
    reputationIndex: join(root, "ip", "reputation.idx"),
    feedAsnKinds: join(root, "ip", "asn-kinds.json"),
    /** What clouds, CDNs and GitHub say each of their ranges is for. */
    infrastructureLabels: join(root, "ip", "labels.idx"),
    /** Where the networks' owners say their ranges are: geofeed rows, cloud regions. */
    declaredLocations: join(root, "ip", "locations.idx"),
    /** What versions before declaredLocations had: privacy relays' egress ranges with their geofeed rows. */
    relayPlaces: join(root, "ip", "relay-places.idx"),
    /** One evidence index per IP list, `<source>.idx`: what it says of each range, and since when. */
    evidence: join(root, "ip", "evidence"),
  } as const;
}

/** The data directory's files, with the generated ones taken from `root` (default: the current version). */
export function dataFilesAt(dataDir: string, root?: string) {
  return root ? { ...dataFiles(dataDir), ...versionFiles(root) } : dataFiles(dataDir);
}

/**
 * Where each dataset lives inside the data directory. Generated data sits in a
 * version folder under `datasets/`, reached through the `current` link that
 * `riskcheck update` swaps atomically (`previous` keeps the one before, for
 * rollback). The operator's own files live beside it and are never replaced.
 */
export function dataFiles(dataDir: string) {
  return {
    ...versionFiles(join(dataDir, "current")),
    versions: join(dataDir, "datasets"),
    current: join(dataDir, "current"),
    previous: join(dataDir, "previous"),
    sources: join(dataDir, "sources.json"),
    allowedDomains: join(dataDir, "email", "allowlist.txt"),
    freeSupplement: join(dataDir, "email", "free-providers.txt"),
    hostingAsns: join(dataDir, "curated", "hosting-asns.txt"),
    /** Where each cloud region is: the place of the ranges a provider assigns to it. */
    cloudRegions: join(dataDir, "curated", "cloud-regions.csv"),
    vpnAsns: join(dataDir, "curated", "vpn-asns.txt"),
    educationAsns: join(dataDir, "curated", "education-asns.txt"),
    ispAsns: join(dataDir, "curated", "isp-asns.txt"),
    crawlerRanges: join(dataDir, "curated", "crawler-ranges.txt"),
    anycastPrefixes: join(dataDir, "curated", "anycast-prefixes.txt"),
    scannerRanges: join(dataDir, "curated", "scanner-ranges.txt"),
    /** The operator's own IP lists: never risky (allowlist), always bad (denylist). */
    ipAllowlist: join(dataDir, "ip", "allowlist.txt"),
    ipDenylist: join(dataDir, "ip", "denylist.txt"),
    /** MaxMind or DB-IP files the operator adds; recognised by their database type. */
    operatorMmdbDir: join(dataDir, "mmdb"),
    /** The file the server writes the audit log's JSON lines to (RISKCHECK_AUDIT_LOG), for the CLI run on this directory. */
    auditLinesFile: join(dataDir, "audit-lines"),
  } as const;
}
