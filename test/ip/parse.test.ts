import { describe, expect, test } from "bun:test";
import { parseIpAddress } from "../../src/ip/parse.ts";
import { isGlobalUnicast } from "../../src/ip/special-purpose.ts";

describe("invalid addresses", () => {
  test.each([
    "",
    " ",
    "1.2.3",
    "1.2.3.4.5",
    "01.2.3.4",
    "1.02.3.4",
    "0x7f.0.0.1",
    "0177.0.0.1",
    "256.1.1.1",
    "1.2.3.256",
    "999.999.999.999",
    "1.2.3.4 ",
    " 1.2.3.4",
    "1.2.3.4\n",
    "1.2.3.",
    ".1.2.3",
    "1..2.3",
    "1.2.3.-4",
    "+1.2.3.4",
    "1.2.3.4/24",
    "1.2.3.4:80",
    "2130706433",
    "localhost",
    "example.com",
    "1.2.3.a",
    "１.２.３.４",
    "1:2:3:4:5:6:7:8:9",
    "1::2::3",
    "12345::",
    "fe80::1%eth0",
    "[::1]",
    "[2001:db8::1]:443",
    "::ffff:01.2.3.4",
    "::ffff:1.2.3",
    "2001:db8::/32",
    "g::1",
    ":::",
    "1.2.3.4::",
    "x".repeat(100),
  ])("%p", (input) => {
    expect(parseIpAddress(input)).toBeNull();
  });
});

describe("valid addresses and their canonical form", () => {
  test.each([
    ["8.8.8.8", "8.8.8.8", 4],
    ["0.0.0.0", "0.0.0.0", 4],
    ["255.255.255.255", "255.255.255.255", 4],
    ["2001:4860:4860::8888", "2001:4860:4860::8888", 6],
    ["2001:4860:4860:0:0:0:0:8888", "2001:4860:4860::8888", 6],
    ["2001:4860:4860:0000:0000:0000:0000:8888", "2001:4860:4860::8888", 6],
    ["2A03:2880:F12F:83:FACE:B00C:0:25DE", "2a03:2880:f12f:83:face:b00c:0:25de", 6],
    ["::", "::", 6],
    ["::1", "::1", 6],
    ["::ffff:8.8.8.8", "8.8.8.8", 4],
    ["::FFFF:8.8.8.8", "8.8.8.8", 4],
    ["::ffff:808:808", "8.8.8.8", 4],
    ["0:0:0:0:0:ffff:8.8.8.8", "8.8.8.8", 4],
    ["::1.2.3.4", "::102:304", 6],
    ["64:ff9b::8.8.8.8", "64:ff9b::808:808", 6],
  ])("%s → %s (IPv%d)", (input, text, version) => {
    expect(parseIpAddress(input)).toMatchObject({ text, version });
  });

  test("IPv4 numbers are uint32 and IPv6 four words", () => {
    expect(parseIpAddress("255.255.255.255")).toMatchObject({ v4: 0xffffffff });
    const v6 = parseIpAddress("2001:db8::ffff:1");
    expect(v6?.version === 6 && [...v6.v6]).toEqual([0x20010db8, 0, 0, 0xffff0001]);
  });
});

describe("special-purpose address space is not global unicast", () => {
  const ranges: [string, string, string, string][] = [
    // [first, last, just below, just above] — the neighbours are global unless noted by "-"
    ["0.0.0.0", "0.255.255.255", "-", "1.0.0.0"],
    ["10.0.0.0", "10.255.255.255", "9.255.255.255", "11.0.0.0"],
    ["100.64.0.0", "100.127.255.255", "100.63.255.255", "100.128.0.0"],
    ["127.0.0.0", "127.255.255.255", "126.255.255.255", "128.0.0.0"],
    ["169.254.0.0", "169.254.255.255", "169.253.255.255", "169.255.0.0"],
    ["172.16.0.0", "172.31.255.255", "172.15.255.255", "172.32.0.0"],
    ["192.0.0.0", "192.0.0.255", "191.255.255.255", "192.0.1.0"],
    ["192.0.2.0", "192.0.2.255", "192.0.1.255", "192.0.3.0"],
    ["192.88.99.0", "192.88.99.255", "192.88.98.255", "192.88.100.0"],
    ["192.168.0.0", "192.168.255.255", "192.167.255.255", "192.169.0.0"],
    ["198.18.0.0", "198.19.255.255", "198.17.255.255", "198.20.0.0"],
    ["198.51.100.0", "198.51.100.255", "198.51.99.255", "198.51.101.0"],
    ["203.0.113.0", "203.0.113.255", "203.0.112.255", "203.0.114.0"],
    ["224.0.0.0", "239.255.255.255", "223.255.255.255", "-"],
    ["240.0.0.0", "255.255.255.255", "-", "-"],
    ["::", "::", "-", "-"],
    ["::1", "::1", "-", "-"],
    ["::ffff:10.0.0.1", "::ffff:192.168.1.1", "-", "-"],
    ["64:ff9b::", "64:ff9b::ffff:ffff", "-", "-"],
    ["100::", "100::ffff:ffff:ffff:ffff", "-", "-"],
    ["2001::", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", "2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2001:200::"],
    ["2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db9::"],
    ["2002::", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2003::"],
    ["3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", "3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "-"],
    ["fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "-", "-"],
    ["fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "-", "-"],
    ["fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "-", "-"],
    ["ff00::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "-", "-"],
    ["4000::", "4000::1", "3fff:1000::", "-"],
  ];
  test.each(ranges)("%s … %s", (first, last, below, above) => {
    for (const a of [first, last]) expect(isGlobalUnicast(parseIpAddress(a)!)).toBe(false);
    for (const a of [below, above].filter((x) => x !== "-")) expect({ a, global: isGlobalUnicast(parseIpAddress(a)!) }).toEqual({ a, global: true });
  });

  test.each(["8.8.8.8", "1.1.1.1", "81.2.69.142", "2001:4860:4860::8888", "2a00:1450::1", "2001:200::1"])("%s is global", (a) => {
    expect(isGlobalUnicast(parseIpAddress(a)!)).toBe(true);
  });
});
