import { type Cidr, cidrContains, parseCidr } from "./cidr.ts";
import { type ParsedIp, parseIpAddress } from "./parse.ts";

export interface ProxyTrust {
  readonly proxies: readonly Cidr[];
}

export const TRUST_NOBODY: ProxyTrust = Object.freeze({ proxies: [] });

/** `RISKCHECK_TRUST_PROXY`: comma-separated addresses or CIDRs. Throws naming the bad entry. */
export function parseTrustedProxies(spec: string): ProxyTrust {
  const proxies: Cidr[] = [];
  for (const entry of spec.split(",").map((e) => e.trim()).filter(Boolean)) {
    const cidr = parseCidr(entry);
    if (!cidr) throw new Error(`"${entry}" is not an IP address or CIDR`);
    proxies.push(cidr);
  }
  return { proxies };
}

export function isTrusted(trust: ProxyTrust, ip: ParsedIp | null): boolean {
  return ip !== null && trust.proxies.some((c) => cidrContains(c, ip));
}

export interface ForwardingHeaders {
  readonly forwarded: string | null;
  readonly forwardedFor: string | null;
}

/**
 * The client's address. Forwarding headers count only when the socket peer is a
 * trusted proxy; then the chain is read from the right, skipping trusted hops, and
 * the first untrusted hop is the client. `Forwarded` (RFC 7239) wins over
 * `X-Forwarded-For` when both are present. An unparsable or obfuscated hop ends
 * the walk at the last address that could be read.
 */
export function resolveClientAddress(peer: string, headers: ForwardingHeaders, trust: ProxyTrust): string {
  const peerIp = parseIpAddress(peer);
  const peerText = peerIp?.text ?? peer;
  if (!isTrusted(trust, peerIp)) return peerText;
  const hops = headers.forwarded !== null ? forwardedFor(headers.forwarded) : headers.forwardedFor !== null ? headers.forwardedFor.split(",") : [];
  let client = peerText;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseIpAddress(stripPort(hops[i].trim()));
    if (hop === null) break;
    client = hop.text;
    if (!isTrusted(trust, hop)) break;
  }
  return client;
}

/** The `for=` values of a Forwarded header, in order. */
function forwardedFor(header: string): string[] {
  const values: string[] = [];
  for (const element of header.split(",")) {
    let value = "";
    for (const pair of element.split(";")) {
      const eq = pair.indexOf("=");
      if (eq !== -1 && pair.slice(0, eq).trim().toLowerCase() === "for") value = pair.slice(eq + 1).trim();
    }
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    values.push(value);
  }
  return values;
}

/** `[2001:db8::1]:443` → `2001:db8::1`; `1.2.3.4:80` → `1.2.3.4`; anything else unchanged. */
function stripPort(hop: string): string {
  if (hop.startsWith("[")) {
    const close = hop.indexOf("]");
    return close === -1 ? hop : hop.slice(1, close);
  }
  const colon = hop.indexOf(":");
  return colon !== -1 && colon === hop.lastIndexOf(":") ? hop.slice(0, colon) : hop;
}
