import { describe, expect, test } from "bun:test";
import {
  addressValue,
  cidrsOfRange,
  mergeRanges,
  parseCidr,
  rangeContains,
  rangeOfCidr,
  subtractRanges,
} from "../../../src/ip/address/address-range.ts";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";

const ip = (text: string) => parseIpAddress(text)!;

describe("parseCidr", () => {
  test.each([
    ["192.0.2.0/24", 4, 0xc0000200n, 0xc00002ffn],
    ["192.0.2.77/24", 4, 0xc0000200n, 0xc00002ffn],
    ["8.8.8.8", 4, 0x08080808n, 0x08080808n],
    ["0.0.0.0/0", 4, 0n, 0xffffffffn],
    ["2001:db8::/32", 6, 0x20010db8n << 96n, ((0x20010db8n + 1n) << 96n) - 1n],
    ["::1", 6, 1n, 1n],
    ["::/0", 6, 0n, (1n << 128n) - 1n],
  ] as const)("%s", (text, version, first, last) => {
    expect(parseCidr(text)).toEqual({ version, first, last });
  });

  test.each([
    "",
    "/24",
    "192.0.2.0/",
    "192.0.2.0/33",
    "192.0.2.0/024",
    "192.0.2.0/-1",
    "192.0.2.0/2x",
    "01.2.3.4/8",
    "2001:db8::/129",
    "2001:db8::/32/1",
    "example.com",
  ])("%p is malformed", (text) => {
    expect(parseCidr(text)).toBeNull();
  });

  test("agrees with rangeOfCidr (ipaddr.js) on well-formed blocks", () => {
    for (const text of ["10.0.0.0/8", "100.64.0.0/10", "2001:4860:4801:10::/60", "2a00:1450::/29", "1.2.3.4/32"]) {
      expect(parseCidr(text)).toEqual(rangeOfCidr(text));
    }
  });
});

test("addressValue and rangeContains compare addresses as one integer per family", () => {
  expect(addressValue(ip("255.255.255.255"))).toBe(0xffffffffn);
  expect(addressValue(ip("ffff::1"))).toBe((0xffffn << 112n) | 1n);
  const block = parseCidr("2001:db8::/32")!;
  expect(rangeContains(block, ip("2001:db8:ffff::1"))).toBe(true);
  expect(rangeContains(block, ip("2001:db9::"))).toBe(false);
  expect(rangeContains(parseCidr("0.0.0.0/0")!, ip("::1"))).toBe(false);
  expect(rangeContains(parseCidr("::/0")!, ip("1.2.3.4"))).toBe(false);
});

test("merge, subtract and split back into CIDRs", () => {
  const merged = mergeRanges([rangeOfCidr("10.0.1.0/24"), rangeOfCidr("10.0.0.0/24"), rangeOfCidr("2001:db8::/48")]);
  expect(merged.flatMap(cidrsOfRange)).toEqual(["10.0.0.0/23", "2001:db8::/48"]);
  const holed = subtractRanges([rangeOfCidr("10.0.0.0/23")], [rangeOfCidr("10.0.0.128/25")]);
  expect(holed.flatMap(cidrsOfRange)).toEqual(["10.0.0.0/25", "10.0.1.0/24"]);
});
