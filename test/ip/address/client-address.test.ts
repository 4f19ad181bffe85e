import { describe, expect, test } from "bun:test";
import {
  type ProxyTrust,
  forwardedHttps,
  parseTrustedProxies,
  resolveClientAddress as resolveParsed,
} from "../../../src/ip/address/client-address.ts";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";

/** The resolver on address text, as the socket gives it. */
const resolveClientAddress = (peer: string, headers: Headers, trust: ProxyTrust) =>
  resolveParsed(parseIpAddress(peer)!, headers, trust).text;

const nobody = parseTrustedProxies("");
const PROXIES = "10.0.0.0/8, 192.0.2.1, 2001:db8::/32";
const proxies = parseTrustedProxies(PROXIES);
const forwardedProxies = parseTrustedProxies(PROXIES, "forwarded");
const headers = (forwardedFor: string | null, forwarded: string | null = null, more: Record<string, string> = {}) => {
  const h = new Headers(more);
  if (forwardedFor !== null) h.set("x-forwarded-for", forwardedFor);
  if (forwarded !== null) h.set("forwarded", forwarded);
  return h;
};

describe("without trust the socket peer is the client, whatever the headers say", () => {
  test.each([
    ["203.0.113.9", headers("8.8.8.8")],
    ["203.0.113.9", headers(null, "for=8.8.8.8")],
    ["203.0.113.9", headers("8.8.8.8", "for=1.1.1.1")],
    ["10.1.2.3", headers("8.8.8.8")],
    ["2001:db8::1", headers("8.8.8.8")],
  ])("%s with spoofed headers", (peer, h) => {
    expect(resolveClientAddress(peer, h, nobody)).toBe(peer);
  });
  test.each([
    ["::ffff:203.0.113.9", "203.0.113.9"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
  ])("peer %s is given as %s", (peer, expected) => {
    expect(resolveClientAddress(peer, headers("8.8.8.8"), nobody)).toBe(expected);
  });
});

describe("an untrusted peer's headers are ignored even when proxies are configured", () => {
  test.each([
    ["198.51.100.7", headers("8.8.8.8")],
    ["198.51.100.7", headers("10.0.0.1")],
    ["198.51.100.7", headers(null, "for=8.8.8.8")],
    ["2001:db9::1", headers("8.8.8.8")],
  ])("%s", (peer, h) => {
    expect(resolveClientAddress(peer, h, proxies)).toBe(peer);
  });
});

describe("X-Forwarded-For from a trusted peer is walked from the right", () => {
  test.each([
    ["one hop", "10.0.0.5", "8.8.8.8", "8.8.8.8"],
    ["the right-most untrusted hop wins over a spoofed left part", "10.0.0.5", "1.1.1.1, 8.8.8.8", "8.8.8.8"],
    ["trusted hops are skipped", "10.0.0.5", "8.8.8.8, 10.9.9.9, 192.0.2.1", "8.8.8.8"],
    ["all hops trusted: the left-most", "10.0.0.5", "10.1.1.1, 10.2.2.2", "10.1.1.1"],
    ["no spaces", "10.0.0.5", "9.9.9.9,8.8.8.8,10.2.2.2", "8.8.8.8"],
    ["a trusted IPv4-mapped peer", "::ffff:10.0.0.5", "8.8.8.8", "8.8.8.8"],
    ["an IPv4-mapped hop is given as IPv4", "10.0.0.5", "::ffff:8.8.8.8", "8.8.8.8"],
    ["IPv6 peer and hop", "2001:db8::1", "2606:4700:4700::1111", "2606:4700:4700::1111"],
    ["IPv6 hop normalised", "10.0.0.5", "2606:4700:4700:0:0:0:0:1111", "2606:4700:4700::1111"],
    ["IPv4 port stripped", "10.0.0.5", "8.8.8.8:1234", "8.8.8.8"],
    ["bracketed IPv6 with port", "10.0.0.5", "[2606:4700::1]:443", "2606:4700::1"],
    ["bracketed IPv6 without port", "10.0.0.5", "[2606:4700::1]", "2606:4700::1"],
  ])("%s", (_, peer, xff, expected) => {
    expect(resolveClientAddress(peer, headers(xff), proxies)).toBe(expected);
  });
});

describe("RFC 7239 Forwarded", () => {
  test.each([
    ["for=", "for=8.8.8.8", "8.8.8.8"],
    ["with other parameters", "for=8.8.8.8;proto=https;by=10.0.0.5", "8.8.8.8"],
    ["parameters in another order", "proto=https;for=8.8.8.8", "8.8.8.8"],
    ["quoted IPv4", 'for="8.8.8.8"', "8.8.8.8"],
    ["quoted IPv4 with port", 'for="8.8.8.8:4711"', "8.8.8.8"],
    ["quoted IPv6 with port", 'for="[2606:4700::1]:443"', "2606:4700::1"],
    ["quoted IPv6 without port", 'for="[2606:4700::1]"', "2606:4700::1"],
    ["obfuscated port", 'for="[2606:4700::1]:_abc"', "2606:4700::1"],
    ["several elements", "for=1.1.1.1, for=8.8.8.8;by=10.0.0.5, for=10.3.3.3", "8.8.8.8"],
    ["case-insensitive parameter name", "For=8.8.8.8", "8.8.8.8"],
    ["spaces around =", "for = 8.8.8.8", "8.8.8.8"],
    ["obfuscated hop stops the walk at the last trusted one", 'for=8.8.8.8, for="_hidden"', "10.0.0.5"],
    ["unknown hop stops the walk", "for=8.8.8.8, for=unknown, for=10.4.4.4", "10.4.4.4"],
    ["an element without for= stops the walk", "for=8.8.8.8, proto=https", "10.0.0.5"],
  ])("%s: %s", (_, forwarded, expected) => {
    expect(resolveClientAddress("10.0.0.5", headers(null, forwarded), forwardedProxies)).toBe(expected);
  });
});

describe("only the configured header is believed", () => {
  const all = headers("1.1.1.1", "for=2.2.2.2", { "x-real-ip": "3.3.3.3", "cf-connecting-ip": "4.4.4.4" });
  test.each([
    ["x-forwarded-for", "1.1.1.1"],
    ["forwarded", "2.2.2.2"],
    ["x-real-ip", "3.3.3.3"],
    ["cf-connecting-ip", "4.4.4.4"],
  ] as const)("%s", (header, expected) => {
    expect(resolveClientAddress("10.0.0.5", all, parseTrustedProxies(PROXIES, header))).toBe(expected);
  });
  test("a client's Forwarded is ignored when X-Forwarded-For is the believed header", () => {
    expect(resolveClientAddress("10.0.0.5", headers("8.8.8.8", "for=1.1.1.1"), proxies)).toBe("8.8.8.8");
    expect(resolveClientAddress("10.0.0.5", headers(null, "for=1.1.1.1"), proxies)).toBe("10.0.0.5");
  });
  test("X-Forwarded-For is ignored when Forwarded is the believed header", () => {
    expect(resolveClientAddress("10.0.0.5", headers("1.1.1.1"), forwardedProxies)).toBe("10.0.0.5");
  });
  test.each([
    ["8.8.8.8", "8.8.8.8"],
    [" 2606:4700:0:0::1 ", "2606:4700::1"],
    ["[2606:4700::1]:443", "2606:4700::1"],
    ["1.1.1.1, 8.8.8.8", "10.0.0.5"],
    ["garbage", "10.0.0.5"],
  ])("X-Real-IP holds one address: %p gives %s", (value, expected) => {
    expect(
      resolveClientAddress("10.0.0.5", new Headers({ "x-real-ip": value }), parseTrustedProxies(PROXIES, "x-real-ip")),
    ).toBe(expected);
  });
  test("X-Real-IP from an untrusted peer is ignored", () => {
    expect(
      resolveClientAddress(
        "198.51.100.7",
        new Headers({ "x-real-ip": "8.8.8.8" }),
        parseTrustedProxies(PROXIES, "x-real-ip"),
      ),
    ).toBe("198.51.100.7");
  });
});

describe("the scheme comes from the believed header's family, right-most value", () => {
  test.each([
    ["x-forwarded-for", { "x-forwarded-proto": "https" }, true],
    ["x-forwarded-for", { "x-forwarded-proto": "HTTPS" }, true],
    ["x-forwarded-for", { "x-forwarded-proto": "https, http" }, false],
    ["x-forwarded-for", { "x-forwarded-proto": "http, https" }, true],
    ["x-forwarded-for", { forwarded: "for=8.8.8.8;proto=https" }, false],
    ["x-real-ip", { "x-forwarded-proto": "https" }, true],
    ["cf-connecting-ip", { "x-forwarded-proto": "https" }, true],
    ["forwarded", { forwarded: "for=8.8.8.8;proto=https" }, true],
    ["forwarded", { forwarded: 'for=8.8.8.8;Proto="https"' }, true],
    ["forwarded", { forwarded: "for=8.8.8.8;proto=https, for=10.0.0.9;proto=http" }, false],
    ["forwarded", { forwarded: "for=8.8.8.8" }, false],
    ["forwarded", { "x-forwarded-proto": "https" }, false],
  ] as const)("%s with %o: %p", (header, h, https) => {
    expect(forwardedHttps(parseTrustedProxies(PROXIES, header), new Headers(h))).toBe(https);
  });
});

describe("garbage never throws and stops at the last address read", () => {
  test.each([
    ["empty header", headers(""), "10.0.0.5"],
    ["only commas", headers(",,,"), "10.0.0.5"],
    ["garbage right of a valid hop", headers("8.8.8.8, garbage"), "10.0.0.5"],
    ["garbage left of a valid hop", headers("garbage, 8.8.4.4"), "8.8.4.4"],
    ["garbage behind a trusted hop", headers("garbage, 10.7.7.7"), "10.7.7.7"],
    ["empty element", headers("8.8.8.8,,10.7.7.7"), "10.7.7.7"],
    ["octal-looking hop", headers("010.0.0.1"), "10.0.0.5"],
    ["zone id", headers("fe80::1%eth0"), "10.0.0.5"],
    ["non-numeric port", headers("8.8.8.8:http"), "10.0.0.5"],
    ["port out of form", headers("8.8.8.8:123456"), "10.0.0.5"],
    ["unterminated bracket", headers("[2606:4700::1"), "10.0.0.5"],
    ["junk after bracket", headers("[2606:4700::1]x"), "10.0.0.5"],
    ["control characters", headers("8.8.8.8\u0001"), "10.0.0.5"],
    ["non-ASCII digits", headers("¹.².³.4"), "10.0.0.5"],
    ["a very long spoofed chain", headers(`${"1.2.3.4, ".repeat(10_000)}8.8.8.8`), "8.8.8.8"],
  ])("%s", (_, h, expected) => {
    expect(resolveClientAddress("10.0.0.5", h, proxies)).toBe(expected);
  });
  test.each([
    ["an unclosed quote", 'for="8.8.8.8'],
    ["only a name", "for"],
  ])("Forwarded with %s", (_, forwarded) => {
    expect(resolveClientAddress("10.0.0.5", headers(null, forwarded), forwardedProxies)).toBe("10.0.0.5");
  });
});

describe("trusted proxy list syntax", () => {
  test.each(["10.0.0.0/33", "nonsense", "1.2.3.4/", "2001:db8::/129", "10.0.0.0/08", "10.0.0.0/-1", "[::1]", "1.2.3"])(
    "%p is refused, naming the entry",
    (entry) => {
      expect(() => parseTrustedProxies(`127.0.0.1, ${entry}`)).toThrow(`"${entry}"`);
    },
  );
  test("blank entries are ignored", () => {
    expect(parseTrustedProxies(" , 127.0.0.1 ,").proxies).toHaveLength(1);
  });
  test.each([
    ["127.0.0.1", "127.0.0.1", true],
    ["127.0.0.1", "127.0.0.2", false],
    ["10.0.0.0/8", "10.255.255.255", true],
    ["10.0.0.1/8", "10.9.9.9", true],
    ["::1", "::1", true],
    ["2001:db8::/32", "2001:db8:ffff::1", true],
    ["2001:db8::/32", "2001:db9::1", false],
    ["0.0.0.0/0", "8.8.8.8", true],
    ["::/0", "2606:4700::1", true],
    ["::/0", "8.8.8.8", false],
  ])("%s trusts %s: %p", (spec, peer, trusted) => {
    const resolved = resolveClientAddress(peer, headers("9.9.9.9"), parseTrustedProxies(spec));
    expect(resolved).toBe(trusted ? "9.9.9.9" : peer);
  });
});
