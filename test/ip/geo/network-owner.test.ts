import { describe, expect, test } from "bun:test";
import type { MmdbRecord } from "../../../src/ip/geo/mmdb.ts";
import { connectionTypeOfRecord, ownerOfRecord } from "../../../src/ip/geo/network-owner.ts";

const record = (fields: object | null) => fields as MmdbRecord | null;

describe("operator ASN and ISP databases", () => {
  test("GeoIP2-ISP: isp and organization as given", () => {
    expect(ownerOfRecord(record({ autonomous_system_number: 15169, autonomous_system_organization: "GOOGLE", isp: "Google", organization: "Google Public DNS" }))).toEqual({
      asn: 15169,
      isp: "Google",
      organization: "Google Public DNS",
    });
  });
  test("GeoLite2-ASN: the AS organisation fills both", () => {
    expect(ownerOfRecord(record({ autonomous_system_number: 13335, autonomous_system_organization: "CLOUDFLARENET" }))).toEqual({
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
