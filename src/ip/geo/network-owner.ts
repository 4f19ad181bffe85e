import type { MmdbRecord } from "./mmdb.ts";

export interface NetworkOwner {
  readonly asn: number;
  readonly isp: string;
  readonly organization: string;
}

/** A record of an operator's ASN or ISP database (GeoLite2-ASN, GeoIP2-ISP, DBIP-ASN-Lite). */
export function ownerOfRecord(record: MmdbRecord | null): NetworkOwner | null {
  const r = record as { autonomous_system_number?: number; autonomous_system_organization?: string; isp?: string; organization?: string } | null;
  if (!r || !r.autonomous_system_number) return null;
  const asOrg = r.autonomous_system_organization ?? "";
  return Object.freeze({ asn: r.autonomous_system_number, isp: r.isp ?? asOrg, organization: r.organization ?? r.isp ?? asOrg });
}

/** A connection-type record's type in the spec's vocabulary, where it has a word for it. */
export function connectionTypeOfRecord(record: MmdbRecord | null): string {
  const value = (record as { connection_type?: string } | null)?.connection_type ?? "";
  return value === "Cable/DSL" || value === "Dialup" ? "Residential" : value;
}
