import { type AddressRange, parseCidr, rangeContains } from "./address-range.ts";
import { type ParsedIp, parseIpAddress } from "./parse.ts";

/** The request headers a trusted proxy may name the client in; exactly one of them is believed. */
export const PROXY_HEADERS = ["x-forwarded-for", "forwarded", "x-real-ip", "cf-connecting-ip"] as const;
export type ProxyHeader = (typeof PROXY_HEADERS)[number];

export interface ProxyTrust {
  readonly proxies: readonly AddressRange[];
  /** The one header whose client address is believed from those proxies; the others are ignored. */
  readonly header: ProxyHeader;
}

/** Comma-separated addresses or CIDRs, IPv4 or IPv6. Throws naming the bad entry. */
export function parseTrustedProxies(spec: string, header: ProxyHeader = "x-forwarded-for"): ProxyTrust {
  const proxies: AddressRange[] = [];
  for (const entry of spec
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const cidr = parseCidr(entry);
    if (!cidr)
      throw new Error(`"${entry}" is not an IP address or CIDR (expected e.g. 10.0.0.1, 10.0.0.0/8 or 2001:db8::/32)`);
    proxies.push(cidr);
  }
  return { proxies, header };
}

export function isTrusted(trust: ProxyTrust, ip: ParsedIp): boolean {
  for (const cidr of trust.proxies) if (rangeContains(cidr, ip)) return true;
  return false;
}

/**
 * The client's address. The configured header (`trust.header`) counts only when the
 * socket peer is a trusted proxy; no other header ever does.
 * `X-Forwarded-For` and `Forwarded` (RFC 7239, its `for=`) are chains read from the
 * right, skipping trusted hops: the first untrusted hop is the client (when every hop
 * is trusted, the left-most). A hop that is malformed or obfuscated (`for=unknown`,
 * `for=_hidden`) ends the walk at the last address read. `X-Real-IP` and
 * `CF-Connecting-IP` hold one address, set by the proxy. Never throws.
 */
export function resolveClientAddress(peer: ParsedIp, headers: Headers, trust: ProxyTrust): ParsedIp {
  const headerValue = headers.get(trust.header);
  if (headerValue === null || !isTrusted(trust, peer)) return peer;
  if (trust.header === "x-real-ip" || trust.header === "cf-connecting-ip") {
    return parseIpAddress(withoutPort(headerValue.trim())) ?? peer;
  }
  let client = peer;
  const useForwarded = trust.header === "forwarded";
  let end = headerValue.length;
  while (end >= 0) {
    const comma = headerValue.lastIndexOf(",", end - 1);
    const element = headerValue.slice(comma + 1, end);
    end = comma;
    const hop = parseIpAddress(withoutPort(useForwarded ? parameter(element, "for") : element.trim()));
    if (hop === null) break;
    client = hop;
    if (!isTrusted(trust, hop)) break;
  }
  return client;
}

/**
 * Whether the proxy next to us says the client's request came over TLS: the right-most
 * `proto=` of `Forwarded` when that is the believed header, else the right-most value
 * of `X-Forwarded-Proto`. Only for a request from a trusted proxy.
 */
export function forwardedHttps(trust: ProxyTrust, headers: Headers): boolean {
  const forwarded = trust.header === "forwarded";
  const value = headers.get(forwarded ? "forwarded" : "x-forwarded-proto");
  if (value === null) return false;
  const last = value.slice(value.lastIndexOf(",") + 1);
  return (forwarded ? parameter(last, "proto") : last.trim()).toLowerCase() === "https";
}

/** One parameter's value in a Forwarded element, unquoted; '' when it has none. */
function parameter(element: string, name: string): string {
  for (const pair of element.split(";")) {
    const eq = pair.indexOf("=");
    if (eq === -1 || pair.slice(0, eq).trim().toLowerCase() !== name) continue;
    const value = pair.slice(eq + 1).trim();
    return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return "";
}

/**
 * `[2001:db8::1]:443` → `2001:db8::1`; `1.2.3.4:80` → `1.2.3.4`; a bare IPv6 address
 * unchanged. A port that is neither digits nor an RFC 7239 obfuscated `_name` makes
 * the hop unreadable ('').
 */
function withoutPort(hop: string): string {
  let address = hop;
  let port: string | null = null;
  if (hop.startsWith("[")) {
    const close = hop.indexOf("]");
    if (close === -1) return "";
    address = hop.slice(1, close);
    if (close !== hop.length - 1) {
      if (hop[close + 1] !== ":") return "";
      port = hop.slice(close + 2);
    }
  } else {
    const colon = hop.indexOf(":");
    if (colon !== -1 && colon === hop.lastIndexOf(":")) {
      address = hop.slice(0, colon);
      port = hop.slice(colon + 1);
    }
  }
  return port === null || PORT.test(port) ? address : "";
}

const PORT = /^(?:\d{1,5}|_[A-Za-z0-9._-]+)$/;
