import { describe, expect, test } from "bun:test";
import type { Reader, Response as MmdbRecord } from "maxmind";
import { connectionTypeFromMmdb, ownerFromMmdb } from "../../src/ip/network-owner.ts";
import { parseIpAddress } from "../../src/ip/parse.ts";

/** Stands in for a maxmind Reader over an operator's database. */
const reader = (record: object | null) => ({ get: () => record }) as unknown as Reader<MmdbRecord>;
const ip = parseIpAddress("8.8.8.8")!;

describe("operator ASN and ISP databases", () => {
  test("GeoIP2-ISP: isp and organization as given", () => {
    expect(ownerFromMmdb(reader({ autonomous_system_number: 15169, autonomous_system_organization: "GOOGLE", isp: "Google", organization: "Google Public DNS" }), ip)).toEqual({
      asn: 15169,
      isp: "Google",
      organization: "Google Public DNS",
    });
  });
  test("GeoLite2-ASN: the AS organisation fills both", () => {
    expect(ownerFromMmdb(reader({ autonomous_system_number: 13335, autonomous_system_organization: "CLOUDFLARENET" }), ip)).toEqual({
      asn: 13335,
      isp: "CLOUDFLARENET",
      organization: "CLOUDFLARENET",
    });
  });
  test("no record, or one without an AS number, defers to the bundled index", () => {
    expect(ownerFromMmdb(reader(null), ip)).toBeNull();
    expect(ownerFromMmdb(reader({ isp: "x" }), ip)).toBeNull();
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
    expect(connectionTypeFromMmdb(reader({ connection_type: value }), ip)).toBe(expected);
  });
  test("no record → ''", () => expect(connectionTypeFromMmdb(reader(null), ip)).toBe(""));
});
