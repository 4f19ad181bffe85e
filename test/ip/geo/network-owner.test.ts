import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { compileRecordTable } from "../../../src/ip/geo/compile-record-table.ts";
import { type MmdbRecord, openMmdb } from "../../../src/ip/geo/mmdb.ts";
import {
  CONNECTION_TYPE_COLUMNS,
  OWNER_COLUMNS,
  connectionTypeLookup,
  connectionTypeOfRecord,
  ownerLookup,
  ownerOfRecord,
} from "../../../src/ip/geo/network-owner.ts";
import { RecordTable } from "../../../src/ip/geo/record-table.ts";

const record = (fields: object | null) => fields as MmdbRecord | null;

describe("operator ASN and ISP databases", () => {
  test("GeoIP2-ISP: isp and organization as given", () => {
    expect(
      ownerOfRecord(
        record({
          autonomous_system_number: 15169,
          autonomous_system_organization: "GOOGLE",
          isp: "Google",
          organization: "Google Public DNS",
        }),
      ),
    ).toEqual({
      asn: 15169,
      isp: "Google",
      organization: "Google Public DNS",
    });
  });
  test("GeoLite2-ASN: the AS organisation fills both", () => {
    expect(
      ownerOfRecord(record({ autonomous_system_number: 13335, autonomous_system_organization: "CLOUDFLARENET" })),
    ).toEqual({
      asn: 13335,
      isp: "CLOUDFLARENET",
      organization: "CLOUDFLARENET",
    });
  });
  test("no record, or one without an AS number, defers to the bundled index", () => {
    expect(ownerOfRecord(record(null))).toBeNull();
    expect(ownerOfRecord(record({ isp: "x" }))).toBeNull();
  });
});

describe("Connection-Type databases in the spec's vocabulary", () => {
  test.each([
    ["Cable/DSL", "Residential"],
    ["Dialup", "Residential"],
    ["Corporate", "Corporate"],
    ["Cellular", "Cellular"],
    ["Satellite", "Satellite"],
  ])("%s → %s", (value, expected) => {
    expect(connectionTypeOfRecord(record({ connection_type: value }))).toBe(expected);
  });
  test("no record → ''", () => expect(connectionTypeOfRecord(record(null))).toBe(""));
});

// The bundled country file stands in for an operator's database: each record's country
// becomes an owner (none for records without one) and a connection type.
const file = resolve(
  import.meta.dir,
  "../../../node_modules/@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb",
);
const asOwner = (r: Record<string, unknown>) =>
  r.country_code
    ? {
        autonomous_system_number: (r.country_code as string).charCodeAt(0) * 1000 + 7,
        autonomous_system_organization: `AS of ${r.country_code}`,
      }
    : {};
const asConnection = (r: Record<string, unknown>) => ({
  connection_type: r.country_code === "US" ? "Cable/DSL" : "Corporate",
});
const mmdb = await openMmdb(file);
const owners = ownerLookup(
  RecordTable.open(compileRecordTable(mmdb, { count: OWNER_COLUMNS.count, of: (r) => OWNER_COLUMNS.of(asOwner(r)) })),
);
const types = connectionTypeLookup(
  RecordTable.open(compileRecordTable(mmdb, { count: 1, of: (r) => CONNECTION_TYPE_COLUMNS.of(asConnection(r)) })),
);

describe("owners and connection types served from a compiled table", () => {
  test.each(["8.8.8.8", "81.2.69.142", "1.1.1.1", "2a03:2880:f12f:83:face:b00c:0:25de", "10.0.0.1", "2001:db8::1"])(
    "%s: as the record itself says",
    (address) => {
      const record = mmdb.reader.get(address) as Record<string, unknown> | null;
      expect(owners(parseIpAddress(address)!)).toEqual(ownerOfRecord((record && asOwner(record)) as MmdbRecord | null));
      expect(types(parseIpAddress(address)!)).toBe(
        connectionTypeOfRecord((record && asConnection(record)) as MmdbRecord | null),
      );
    },
  );
  test("8.8.8.8 has an owner, a private address none", () => {
    expect(owners(parseIpAddress("8.8.8.8")!)).toEqual({ asn: 85007, isp: "AS of US", organization: "AS of US" });
    expect(types(parseIpAddress("8.8.8.8")!)).toBe("Residential");
    expect(owners(parseIpAddress("10.0.0.1")!)).toBeNull();
    expect(types(parseIpAddress("10.0.0.1")!)).toBe("");
  });
});
