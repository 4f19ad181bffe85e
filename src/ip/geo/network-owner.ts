import type { ParsedIp } from "../address/parse.ts";
import type { TableColumns } from "./compile-record-table.ts";
import type { MmdbRecord } from "./mmdb.ts";
import { NO_ORDINAL, type RecordTable } from "./record-table.ts";

export interface NetworkOwner {
  readonly asn: number;
  readonly isp: string;
  readonly organization: string;
}

/** A record of an operator's ASN or ISP database (GeoLite2-ASN, GeoIP2-ISP, DBIP-ASN-Lite). */
export function ownerOfRecord(record: MmdbRecord | null): NetworkOwner | null {
  const r = record as {
    autonomous_system_number?: number;
    autonomous_system_organization?: string;
    isp?: string;
    organization?: string;
  } | null;
  if (!r?.autonomous_system_number) return null;
  const asOrg = r.autonomous_system_organization ?? "";
  return Object.freeze({
    asn: r.autonomous_system_number,
    isp: r.isp ?? asOrg,
    organization: r.organization ?? r.isp ?? asOrg,
  });
}

/** A connection-type record's type in the spec's vocabulary, where it has a word for it. */
export function connectionTypeOfRecord(record: MmdbRecord | null): string {
  const value = (record as { connection_type?: string } | null)?.connection_type ?? "";
  return value === "Cable/DSL" || value === "Dialup" ? "Residential" : value;
}

/** An ASN or ISP database's columns: the owner's AS number ('' for none), ISP and organisation. */
export const OWNER_COLUMNS: TableColumns = {
  count: 3,
  of(record) {
    const owner = ownerOfRecord(record as MmdbRecord);
    return owner ? [String(owner.asn), owner.isp, owner.organization] : ["", "", ""];
  },
};

/** A connection-type database's one column: the type in the spec's vocabulary. */
export const CONNECTION_TYPE_COLUMNS: TableColumns = {
  count: 1,
  of: (record) => [connectionTypeOfRecord(record as MmdbRecord)],
};

export function ownerLookup(table: RecordTable): (ip: ParsedIp) => NetworkOwner | null {
  return (ip) => {
    const ordinal = table.ordinalOf(ip);
    const asn = ordinal === NO_ORDINAL ? "" : table.cell(ordinal, 0);
    return asn === ""
      ? null
      : Object.freeze({ asn: Number(asn), isp: table.cell(ordinal, 1), organization: table.cell(ordinal, 2) });
  };
}

export function connectionTypeLookup(table: RecordTable): (ip: ParsedIp) => string {
  return (ip) => {
    const ordinal = table.ordinalOf(ip);
    return ordinal === NO_ORDINAL ? connectionTypeOfRecord(null) : table.cell(ordinal, 0);
  };
}
