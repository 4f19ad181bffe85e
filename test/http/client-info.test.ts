import { describe, expect, test } from "bun:test";
import { clientResolver } from "../../src/http/client-info.ts";
import { parseTrustedProxies } from "../../src/ip/address/client-address.ts";

const serverSeeing = (address: string) =>
  ({ requestIP: () => ({ address, family: "", port: 1 }) }) as unknown as Bun.Server<unknown>;
const request = (headers: Record<string, string>, url = "http://riskcheck.test/dashboard") =>
  new Request(url, { headers });

describe("client address and TLS behind proxies", () => {
  const behindProxy = clientResolver(parseTrustedProxies("10.0.0.1")).info;
  const direct = clientResolver(parseTrustedProxies("")).info;
  const headers = { "x-forwarded-for": "81.2.69.142", "x-forwarded-proto": "https" };

  test("a trusted proxy's headers give the client and its TLS", () => {
    expect(behindProxy(request(headers), serverSeeing("10.0.0.1"))).toEqual({ address: "81.2.69.142", https: true });
    const forwardedFamily = clientResolver(parseTrustedProxies("10.0.0.1", "forwarded")).info;
    expect(forwardedFamily(request({ forwarded: "for=81.2.69.142;proto=https" }), serverSeeing("10.0.0.1"))).toEqual({
      address: "81.2.69.142",
      https: true,
    });
    expect(
      behindProxy(request({ "x-forwarded-for": "81.2.69.142", "x-forwarded-proto": "http" }), serverSeeing("10.0.0.1"))
        .https,
    ).toBe(false);
  });
  test("the other family's headers are ignored", () => {
    expect(behindProxy(request({ forwarded: "for=81.2.69.142;proto=https" }), serverSeeing("10.0.0.1"))).toEqual({
      address: "10.0.0.1",
      https: false,
    });
  });
  test("anyone else's headers are ignored", () => {
    expect(behindProxy(request(headers), serverSeeing("198.51.100.3"))).toEqual({
      address: "198.51.100.3",
      https: false,
    });
    expect(direct(request(headers), serverSeeing("10.0.0.1"))).toEqual({ address: "10.0.0.1", https: false });
  });
  test("an IPv4-mapped socket peer reads as IPv4", () => {
    expect(direct(request({}), serverSeeing("::ffff:203.0.113.5")).address).toBe("203.0.113.5");
  });
  test("the address the IP check takes is parsed once, the same as the dashboard's", () => {
    const resolver = clientResolver(parseTrustedProxies("10.0.0.1"));
    expect(resolver.address(request(headers), serverSeeing("10.0.0.1"))).toEqual({
      version: 4,
      text: "81.2.69.142",
      v4: 0x5102458e,
    });
    expect(resolver.address(request(headers), serverSeeing("2001:db8::7"))?.text).toBe("2001:db8::7");
    expect(resolver.address(request({}), serverSeeing(""))).toBeNull();
  });
});
