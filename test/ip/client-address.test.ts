import { describe, expect, test } from "bun:test";
import { parseTrustedProxies, resolveClientAddress } from "../../src/ip/client-address.ts";

const none = parseTrustedProxies("");
const proxies = parseTrustedProxies("10.0.0.0/8, 192.0.2.1, 2001:db8::/32");
const headers = (forwardedFor: string | null, forwarded: string | null = null) => ({ forwardedFor, forwarded });

describe("without trusted proxies the socket peer is the client", () => {
  test.each([
    ["203.0.113.9", headers("8.8.8.8")],
    ["203.0.113.9", headers(null, "for=8.8.8.8")],
    ["10.1.2.3", headers("8.8.8.8")],
  ])("%s with spoofed headers", (peer, h) => {
    expect(resolveClientAddress(peer, h, none)).toBe(peer);
  });
  test("an IPv4-mapped peer is given as IPv4", () => {
    expect(resolveClientAddress("::ffff:203.0.113.9", headers(null), none)).toBe("203.0.113.9");
  });
});

describe("with trusted proxies", () => {
  test.each([
    ["untrusted peer: headers ignored", "198.51.100.7", headers("8.8.8.8"), "198.51.100.7"],
    ["one hop", "10.0.0.5", headers("8.8.8.8"), "8.8.8.8"],
    ["the right-most untrusted hop wins over a spoofed left part", "10.0.0.5", headers("1.1.1.1, 8.8.8.8"), "8.8.8.8"],
    ["trusted hops are skipped", "10.0.0.5", headers("8.8.8.8, 10.9.9.9, 192.0.2.1"), "8.8.8.8"],
    ["all hops trusted: the left-most", "10.0.0.5", headers("10.1.1.1, 10.2.2.2"), "10.1.1.1"],
    ["no header: the peer", "10.0.0.5", headers(null), "10.0.0.5"],
    ["empty header: the peer", "10.0.0.5", headers(""), "10.0.0.5"],
    ["garbage stops the walk", "10.0.0.5", headers("8.8.8.8, garbage"), "10.0.0.5"],
    ["garbage left of a valid hop", "10.0.0.5", headers("garbage, 8.8.4.4"), "8.8.4.4"],
    ["ports are stripped", "10.0.0.5", headers("8.8.8.8:1234"), "8.8.8.8"],
    ["IPv6 hop", "2001:db8::1", headers("2606:4700:4700::1111"), "2606:4700:4700::1111"],
    ["Forwarded for=", "10.0.0.5", headers(null, "for=8.8.8.8;proto=https"), "8.8.8.8"],
    ["Forwarded quoted IPv6 with port", "10.0.0.5", headers(null, 'for="[2606:4700::1]:443"'), "2606:4700::1"],
    ["Forwarded several elements", "10.0.0.5", headers(null, "for=1.1.1.1, for=8.8.8.8;by=10.0.0.5, for=10.3.3.3"), "8.8.8.8"],
    ["Forwarded obfuscated hop stops the walk", "10.0.0.5", headers(null, 'for=8.8.8.8, for="_hidden"'), "10.0.0.5"],
    ["Forwarded wins over X-Forwarded-For", "10.0.0.5", headers("1.1.1.1", "for=8.8.8.8"), "8.8.8.8"],
    ["case-insensitive parameter name", "10.0.0.5", headers(null, "For=8.8.8.8"), "8.8.8.8"],
  ])("%s", (_, peer, h, expected) => {
    expect(resolveClientAddress(peer, h, proxies)).toBe(expected);
  });
});

describe("RISKCHECK_TRUST_PROXY syntax", () => {
  test.each(["10.0.0.0/33", "nonsense", "1.2.3.4/", "2001:db8::/129", "10.0.0.0/08"])("%p is refused, naming the entry", (spec) => {
    expect(() => parseTrustedProxies(`127.0.0.1, ${spec}`)).toThrow(spec);
  });
  test("blank entries are ignored", () => {
    expect(parseTrustedProxies(" , 127.0.0.1 ,").proxies).toHaveLength(1);
  });
});
