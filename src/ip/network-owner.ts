import type { Reader, Response as MmdbRecord } from "maxmind";
import type { ParsedIp } from "./parse.ts";

export interface NetworkOwner {
  readonly asn: number;
  readonly isp: string;
  readonly organization: string;
}

/** An operator's ASN or ISP database (GeoLite2-ASN, GeoIP2-ISP, DBIP-ASN-Lite). */
export function ownerFromMmdb(reader: Reader<MmdbRecord>, ip: ParsedIp): NetworkOwner | null {
  const r = reader.get(ip.text) as { autonomous_system_number?: number; autonomous_system_organization?: string; isp?: string; organization?: string } | null;
  if (!r || !r.autonomous_system_number) return null;
  const asOrg = r.autonomous_system_organization ?? "";
  return { asn: r.autonomous_system_number, isp: r.isp ?? asOrg, organization: r.organization ?? r.isp ?? asOrg };
}

/** MaxMind's connection types in the spec's vocabulary, where it has a word for them. */
export function connectionTypeFromMmdb(reader: Reader<MmdbRecord>, ip: ParsedIp): string {
  const value = (reader.get(ip.text) as { connection_type?: string } | null)?.connection_type ?? "";
  return value === "Cable/DSL" || value === "Dialup" ? "Residential" : value;
}
