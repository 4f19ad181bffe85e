import { describe, expect, test } from "bun:test";
import {
  ALL_KINDS,
  KIND,
  KIND_NAMES,
  connectionTypeOf,
  kindBit,
  kindNames,
  kindsInName,
  kindsOfNetwork,
} from "../../../src/ip/verdict/network-kinds.ts";

describe("a kind bitmask reads as the spec's kind array", () => {
  test("in the spec's order: hosting, vpn, scanner, crawler, isp, education, dynamic", () => {
    expect(kindNames(ALL_KINDS)).toEqual(["hosting", "vpn", "scanner", "crawler", "isp", "education", "dynamic"]);
    expect(KIND_NAMES.map(kindBit)).toEqual([
      KIND.hosting,
      KIND.vpn,
      KIND.scanner,
      KIND.crawler,
      KIND.isp,
      KIND.education,
      KIND.dynamic,
    ]);
  });

  test.each([
    [0, []],
    [KIND.dynamic | KIND.hosting, ["hosting", "dynamic"]],
    [KIND.education | KIND.scanner, ["scanner", "education"]],
    [KIND.crawler | 0x100, ["crawler"]],
  ] as [number, string[]][])("%d → %p", (bits, names) => {
    expect([...kindNames(bits)] as string[]).toEqual(names);
  });

  test("every one of the 128 masks is a prebuilt frozen array: nothing allocated per request", () => {
    for (let bits = 0; bits <= ALL_KINDS; bits++) {
      expect(kindNames(bits)).toBe(kindNames(bits));
      expect(Object.isFrozen(kindNames(bits))).toBe(true);
      expect(kindNames(bits).reduce((mask, name) => mask | kindBit(name), 0)).toBe(bits);
    }
  });

  test("an unknown kind name is refused", () => {
    expect(() => kindBit("proxy")).toThrow('unknown kind "proxy"');
  });
});

describe("kinds of a network from the curated ASN lists and its organisation's name", () => {
  test.each([
    [0, "Princeton University", ["education"]],
    [0, "Technische Hochschule Nürnberg", ["education"]],
    [0, "Massachusetts Institute of Technology", ["education"]],
    [0, "Croatian Academic and Research Network", ["education"]],
    [0, "Research and Education Network for Uganda", ["education"]],
    [0, 'Federal State Institution of Culture "State Academic Bolshoi Theatre of Russia"', []],
    [0, "Comcast Cable Communications, LLC", ["isp"]],
    [0, "Deutsche Telekom AG", ["isp"]],
    [0, "PJSC Rostelecom", ["isp"]],
    [0, "PT. Telekomunikasi Selular", ["isp"]],
    [0, "UNIFIQUE TELECOMUNICACOES S/A", ["isp"]],
    [0, "SK Broadband Co Ltd", ["isp"]],
    [0, "T-Mobile USA, Inc.", ["isp"]],
    [0, "Cogent Communications", []],
    [0, "Level 3 Communications, Inc.", []],
    [0, "Google LLC", []],
    [KIND.hosting, "Amazon.com, Inc.", ["hosting"]],
    [KIND.hosting, "Vodafone Cloud Hosting", ["hosting"]],
    [KIND.isp, "Chinanet", ["isp"]],
    [KIND.isp, "Bell Canada", ["isp"]],
    [KIND.vpn, "PacketHub S.A.", ["vpn"]],
    [KIND.education, "CENIC", ["education"]],
  ] as [number, string, string[]][])("%d %s → %p", (listed, organization, expected) => {
    expect([...kindNames(kindsOfNetwork(listed, kindsInName(organization)))] as string[]).toEqual(expected);
  });

  test("a telecom name does not make a listed hosting or VPN network an ISP", () => {
    expect(kindsOfNetwork(KIND.hosting, kindsInName("IDC, China Telecommunications Corporation"))).toBe(KIND.hosting);
    expect(kindsOfNetwork(KIND.vpn, kindsInName("Some Telecom VPN"))).toBe(KIND.vpn);
  });
});

describe("connection_type from kinds when no Connection-Type database is configured", () => {
  test.each([
    [KIND.hosting, "Corporate"],
    [KIND.vpn, "Corporate"],
    [KIND.crawler, "Corporate"],
    [KIND.education, "Corporate"],
    [KIND.isp, "Residential"],
    [KIND.dynamic, "Residential"],
    [KIND.isp | KIND.hosting, "Corporate"],
    [KIND.scanner, ""],
    [0, ""],
  ])("kinds %d → %p", (kinds, type) => {
    expect(connectionTypeOf(kinds)).toBe(type);
  });
});
