import { join } from "node:path";

/** Where each dataset lives inside the data directory. */
export function dataFiles(dataDir: string) {
  return {
    disposableDomains: join(dataDir, "email", "disposable.txt"),
    disposableWildcards: join(dataDir, "email", "disposable-wildcard.txt"),
    freeDomains: join(dataDir, "email", "free.txt"),
    allowedDomains: join(dataDir, "email", "allowlist.txt"),
    cityV4: join(dataDir, "geo", "city-ipv4.mmdb"),
    cityV6: join(dataDir, "geo", "city-ipv6.mmdb"),
    country: join(dataDir, "geo", "country.mmdb"),
    asnIndex: join(dataDir, "ip", "asn.idx"),
    reputationIndex: join(dataDir, "ip", "reputation.idx"),
    hostingAsns: join(dataDir, "curated", "hosting-asns.txt"),
    vpnAsns: join(dataDir, "curated", "vpn-asns.txt"),
    educationAsns: join(dataDir, "curated", "education-asns.txt"),
    crawlerRanges: join(dataDir, "curated", "crawler-ranges.txt"),
    anycastPrefixes: join(dataDir, "curated", "anycast-prefixes.txt"),
    /** MaxMind or DB-IP files the operator adds; recognised by their database type. */
    operatorMmdbDir: join(dataDir, "mmdb"),
  } as const;
}
