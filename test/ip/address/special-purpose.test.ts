import { describe, expect, test } from "bun:test";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { isGlobalUnicast, specialPurposeCidrs } from "../../../src/ip/address/special-purpose.ts";

const isGlobal = (a: string) => isGlobalUnicast(parseIpAddress(a)!);

describe("special-purpose space is not global unicast", () => {
  // [first, last, just below, just above]; "-" where the neighbour is special too or does not exist.
  test.each([
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
    ["64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff", "-", "-"],
    ["100::", "100::ffff:ffff:ffff:ffff", "-", "-"],
    ["2001::", "2001::ffff:ffff:ffff:ffff:ffff:ffff", "2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "-"],
    ["2001:2::", "2001:2:0:ffff:ffff:ffff:ffff:ffff", "-", "-"],
    ["2001:10::", "2001:1f:ffff:ffff:ffff:ffff:ffff:ffff", "-", "2001:20::"],
    ["2001:40::", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", "2001:3f:ffff:ffff:ffff:ffff:ffff:ffff", "2001:200::"],
    ["2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db9::"],
    ["2002::", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2003::"],
    ["3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", "3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "3fff:1000::"],
    ["4000::", "5fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "-"],
    ["fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "-", "-"],
    ["fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "-", "-"],
    ["fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "-", "-"],
    ["ff00::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "-", "-"],
  ])("%s … %s", (first, last, below, above) => {
    expect({ first: isGlobal(first), last: isGlobal(last) }).toEqual({ first: false, last: false });
    for (const a of [below, above].filter((x) => x !== "-"))
      expect({ a, global: isGlobal(a) }).toEqual({ a, global: true });
  });
});

describe("blocks the registries mark globally reachable stay global", () => {
  test.each([
    ["192.0.0.9", "192.0.0.8", "192.0.0.11"],
    ["192.0.0.10", "192.0.0.8", "192.0.0.11"],
    ["2001:1::1", "2001:1::", "2001:1::4"],
    ["2001:1::3", "2001:1::", "2001:1::4"],
    ["2001:3::", "2001:2:ffff:ffff:ffff:ffff:ffff:ffff", "2001:4::"],
    ["2001:3:ffff:ffff:ffff:ffff:ffff:ffff", "2001:2:ffff:ffff:ffff:ffff:ffff:ffff", "2001:4::"],
    ["2001:4:112::1", "2001:4:111:ffff:ffff:ffff:ffff:ffff", "2001:4:113::"],
    ["2001:20::1", "2001:1f:ffff:ffff:ffff:ffff:ffff:ffff", "2001:40::"],
    ["2001:3f:ffff:ffff:ffff:ffff:ffff:ffff", "2001:1f:ffff:ffff:ffff:ffff:ffff:ffff", "2001:40::"],
  ])("%s (neighbours %s and %s are not)", (inside, below, above) => {
    expect([isGlobal(inside), isGlobal(below), isGlobal(above)]).toEqual([true, false, false]);
  });
});

describe("ordinary unicast is global", () => {
  test.each([
    "1.0.0.0",
    "8.8.8.8",
    "1.1.1.1",
    "81.2.69.142",
    "192.31.196.1",
    "192.175.48.1",
    "223.255.255.255",
    "2001:4860:4860::8888",
    "2a00:1450::1",
    "2001:200::1",
    "2600::",
    "3ffe::1",
  ])("%s", (a) => {
    expect(isGlobal(a)).toBe(true);
  });
});

describe("the exported CIDR lists describe exactly the special space", () => {
  test.each([
    ["IPv4", specialPurposeCidrs(4), 4],
    ["IPv6", specialPurposeCidrs(6), 6],
  ] as const)("%s: sorted, disjoint, every block not global at both ends, and the gaps global", (_, cidrs, version) => {
    const bits = version === 4 ? 32n : 128n;
    const value = (a: string) => {
      const ip = parseIpAddress(a)!;
      return ip.version === 4 ? BigInt(ip.v4) : [...ip.v6].reduce((v, w) => (v << 32n) | BigInt(w), 0n);
    };
    const text = (v: bigint) => {
      if (version === 4) return [24n, 16n, 8n, 0n].map((s) => (v >> s) & 255n).join(".");
      return Array.from({ length: 8 }, (_, i) => ((v >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(":");
    };
    let previousLast = -1n;
    for (const cidr of cidrs) {
      const [address, prefix] = cidr.split("/");
      const first = value(address);
      const last = first + (1n << (bits - BigInt(prefix))) - 1n;
      expect({ cidr, sorted: first > previousLast }).toEqual({ cidr, sorted: true });
      if (version === 6 && first === 0n) continue; // ::/3 holds ::ffff:0:0/96, which parses as IPv4
      expect({ cidr, first: isGlobal(text(first)), last: isGlobal(text(last)) }).toEqual({
        cidr,
        first: false,
        last: false,
      });
      if (first > previousLast + 1n)
        expect({ gapBefore: cidr, global: isGlobal(text(first - 1n)) }).toEqual({ gapBefore: cidr, global: true });
      previousLast = last;
    }
  });
  test("they name the well-known private blocks", () => {
    expect(specialPurposeCidrs(4)).toEqual(
      expect.arrayContaining(["10.0.0.0/8", "100.64.0.0/10", "172.16.0.0/12", "192.168.0.0/16", "224.0.0.0/3"]),
    );
    expect(specialPurposeCidrs(6)).toEqual(
      expect.arrayContaining(["::/3", "2001:db8::/32", "2002::/16", "3fff::/20", "4000::/2", "8000::/1"]),
    );
  });
});
