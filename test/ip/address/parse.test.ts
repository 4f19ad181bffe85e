import { describe, expect, setDefaultTimeout, test } from "bun:test";
import ipaddr from "ipaddr.js";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { scaled } from "../../support/slowness.ts";

// 100,000 generated addresses compared with ipaddr.js: seconds on a loaded two-core machine.
setDefaultTimeout(scaled(20_000));

describe("malformed input is refused", () => {
  test.each([
    "",
    " ",
    "1.2.3",
    "1.2.3.4.5",
    "01.2.3.4",
    "1.02.3.4",
    "1.2.3.00",
    "0x7f.0.0.1",
    "0177.0.0.1",
    "256.1.1.1",
    "1.2.3.256",
    "999.999.999.999",
    "1.2.3.4 ",
    " 1.2.3.4",
    "1.2.3.4\n",
    "1.2.3.4\0",
    "1.2.3.",
    ".1.2.3",
    "1..2.3",
    "1.2.3.-4",
    "+1.2.3.4",
    "1.2.3.4/24",
    "1.2.3.4:80",
    "2130706433",
    "0x7f000001",
    "localhost",
    "example.com",
    "1.2.3.a",
    "１.２.３.４",
    "1.2.3.4٫",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7",
    "1::2::3",
    "12345::",
    "fe80::1%eth0",
    "fe80::1%25eth0",
    "[::1]",
    "[2001:db8::1]:443",
    "::ffff:01.2.3.4",
    "::ffff:1.2.3",
    "::ffff:1.2.3.4.5",
    "::ffff:256.1.1.1",
    "::1.2.3.4:5",
    "2001:db8::/32",
    "g::1",
    ":::",
    ":1::",
    "1::2:",
    "1.2.3.4::",
    "2001:db8:: 1",
    "x".repeat(100),
    "1".repeat(46),
  ])("%p", (input) => {
    expect(parseIpAddress(input)).toBeNull();
  });
});

describe("valid addresses and their canonical form", () => {
  test.each([
    ["8.8.8.8", "8.8.8.8", 4],
    ["0.0.0.0", "0.0.0.0", 4],
    ["255.255.255.255", "255.255.255.255", 4],
    ["10.0.0.1", "10.0.0.1", 4],
    ["2001:4860:4860::8888", "2001:4860:4860::8888", 6],
    ["2001:4860:4860:0:0:0:0:8888", "2001:4860:4860::8888", 6],
    ["2001:4860:4860:0000:0000:0000:0000:8888", "2001:4860:4860::8888", 6],
    ["2A03:2880:F12F:83:FACE:B00C:0:25DE", "2a03:2880:f12f:83:face:b00c:0:25de", 6],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1", 6],
    ["2001:0:0:1:0:0:0:1", "2001:0:0:1::1", 6],
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1", 6],
    ["::", "::", 6],
    ["::1", "::1", 6],
    ["1::", "1::", 6],
    ["ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 6],
    ["::1.2.3.4", "::102:304", 6],
    ["64:ff9b::8.8.8.8", "64:ff9b::808:808", 6],
    ["1:2:3:4:5:6:7.8.9.10", "1:2:3:4:5:6:708:90a", 6],
  ])("%s → %s (IPv%d)", (input, text, version) => {
    expect(parseIpAddress(input)).toMatchObject({ text, version });
  });

  test("the canonical IPv6 form is RFC 5952's, as URL hosts serialise it", () => {
    let seed = 7;
    const next = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0), seed);
    for (let i = 0; i < 2000; i++) {
      // Groups are often zero, so the zero-run compression is exercised.
      const groups = Array.from({ length: 8 }, () => (next() % 3 === 0 ? (next() & 0xffff).toString(16) : "0"));
      if (groups.slice(0, 6).join(":") === "0:0:0:0:0:ffff") continue;
      const full = groups.join(":");
      const expected = new URL(`http://[${full}]/`).hostname.slice(1, -1);
      expect({ full, text: parseIpAddress(full)?.text }).toEqual({ full, text: expected });
    }
  });
});

describe("IPv4-mapped IPv6 is answered as IPv4", () => {
  test.each([
    ["::ffff:8.8.8.8", "8.8.8.8"],
    ["::FFFF:8.8.8.8", "8.8.8.8"],
    ["::ffff:808:808", "8.8.8.8"],
    ["0:0:0:0:0:ffff:8.8.8.8", "8.8.8.8"],
    ["0000:0000:0000:0000:0000:ffff:0808:0808", "8.8.8.8"],
    ["::ffff:0.0.0.0", "0.0.0.0"],
    ["::ffff:255.255.255.255", "255.255.255.255"],
  ])("%s → %s", (input, text) => {
    expect(parseIpAddress(input)).toEqual({ version: 4, text, v4: (parseIpAddress(text) as { v4: number }).v4 });
  });
});

describe("numeric forms for the range indexes", () => {
  test.each([
    ["0.0.0.0", 0],
    ["0.0.0.1", 1],
    ["1.2.3.4", 0x01020304],
    ["128.0.0.0", 0x80000000],
    ["255.255.255.255", 0xffffffff],
  ])("%s is uint32 %d", (input, value) => {
    expect(parseIpAddress(input)).toMatchObject({ version: 4, v4: value });
  });
  test.each([
    ["::", [0, 0, 0, 0]],
    ["2001:db8::ffff:1", [0x20010db8, 0, 0, 0xffff0001]],
    ["ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff]],
    ["8000::1", [0x80000000, 0, 0, 1]],
  ])("%s is four words", (input, words) => {
    const ip = parseIpAddress(input);
    expect(ip?.version === 6 && [...ip.v6]).toEqual(words);
  });
});

/** The parser riskcheck had before its own, on ipaddr.js: the oracle for the fuzz test below. */
function ipaddrOracle(raw: string): { version: number; text: string } | null {
  if (raw.length === 0 || raw.length > 45 || !raw.includes(":")) return null;
  if (!/^[0-9a-fA-F:.]+$/.test(raw)) return null;
  let hex = raw;
  if (raw.includes(".")) {
    const colon = raw.lastIndexOf(":");
    const quad = raw.slice(colon + 1).match(/^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/);
    if (!quad || quad.slice(1).some((o) => Number(o) > 255)) return null;
    const v4 = quad.slice(1).reduce((a, o) => a * 256 + Number(o), 0);
    hex = `${raw.slice(0, colon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  let parts: number[];
  try {
    parts = ipaddr.IPv6.parse(hex).parts;
  } catch {
    return null;
  }
  if (parts.slice(0, 5).every((p) => p === 0) && parts[5] === 0xffff)
    return { version: 4, text: `${parts[6] >> 8}.${parts[6] & 255}.${parts[7] >> 8}.${parts[7] & 255}` };
  return { version: 6, text: ipaddr.IPv6.parse(hex).toRFC5952String() };
}

describe("IPv6 text is read exactly as ipaddr.js reads it", () => {
  test("100,000 generated near-addresses: the same verdict and the same canonical text", () => {
    let seed = 11;
    const next = (n: number) => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0), seed % n);
    const pieces = [
      "",
      "0",
      "1",
      "ff",
      "FFFF",
      "abcd",
      "12345",
      "0000",
      "::",
      ":",
      ":::",
      ".",
      "1.2.3.4",
      "255.255.255.255",
      "01.2.3.4",
      "256.0.0.1",
      "ffff",
      "g",
      " ",
      "%1",
      "1.2.3",
    ];
    let agreed = 0;
    for (let i = 0; i < 100_000; i++) {
      let raw = "";
      if (next(2) === 0) {
        // Mostly well-formed: groups (often zero), maybe one "::", maybe a dotted-quad tail.
        const groups = Array.from({ length: 1 + next(9) }, () => (next(3) === 0 ? "0" : next(0x10000).toString(16)));
        if (next(3) === 0) groups.splice(-2, 2, `${next(256)}.${next(256)}.${next(256)}.${next(256)}`);
        if (next(2) === 0) groups.splice(next(groups.length + 1), 0, "");
        raw = groups.join(":").replace(/^:|:$/, "::");
        if (next(5) === 0) raw = raw.toUpperCase();
      } else {
        const n = 1 + next(12);
        for (let k = 0; k < n; k++) raw += pieces[next(pieces.length)] + (next(3) === 0 ? "" : ":");
        if (next(4) === 0) raw = raw.slice(0, -1);
      }
      const ours = parseIpAddress(raw);
      const expected: { version: number; text: string } | null = raw.includes(":")
        ? ipaddrOracle(raw)
        : ours && { version: ours.version, text: ours.text };
      expect({ raw, result: ours && { version: ours.version as number, text: ours.text } }).toEqual({
        raw,
        result: expected,
      });
      if (expected) agreed++;
    }
    expect(agreed).toBeGreaterThan(10_000);
  });
});
