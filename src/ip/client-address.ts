import { type Cidr, cidrContains, parseCidr } from "./cidr.ts";
import { type ParsedIp, parseIpAddress } from "./parse.ts";

export interface ProxyTrust {
  readonly proxies: readonly Cidr[];
}


/** Comma-separated addresses or CIDRs, IPv4 or IPv6. Throws naming the bad entry. */
export function parseTrustedProxies(spec: string): ProxyTrust {
  const proxies: Cidr[] = [];
  for (const entry of spec.split(",").map((e) => e.trim()).filter(Boolean)) {
    const cidr = parseCidr(entry);
    if (!cidr) throw new Error(`"${entry}" is not an IP address or CIDR (expected e.g. 10.0.0.1, 10.0.0.0/8 or 2001:db8::/32)`);
    proxies.push(cidr);
  }
  return { proxies };
}

export function isTrusted(trust: ProxyTrust, ip: ParsedIp | null): boolean {
  if (ip === null) return false;
  for (const cidr of trust.proxies) if (cidrContains(cidr, ip)) return true;
  return false;
}

export interface ForwardingHeaders {
  readonly forwarded: string | null;
  readonly forwardedFor: string | null;
}

/**
 * The client's address. Forwarding headers count only when the socket peer is a
 * trusted proxy; then the chain is read from the right, skipping trusted hops, and
 * the first untrusted hop is the client (when every hop is trusted, the left-most).
 * A hop that is malformed or obfuscated (`for=unknown`, `for=_hidden`) ends the walk
 * at the last address read. `Forwarded` (RFC 7239) wins over `X-Forwarded-For` when
 * it carries a `for=` parameter. Never throws.
 */
export function resolveClientAddress(peer: string, headers: ForwardingHeaders, trust: ProxyTrust): string {
  const peerIp = parseIpAddress(peer);
  let client = peerIp?.text ?? peer;
  if (!isTrusted(trust, peerIp)) return client;
  const useForwarded = headers.forwarded !== null && FOR_PARAMETER.test(headers.forwarded);
  const header = useForwarded ? headers.forwarded! : headers.forwardedFor;
  if (header === null) return client;

  let end = header.length;
  while (end >= 0) {
    const comma = header.lastIndexOf(",", end - 1);
    const element = header.slice(comma + 1, end);
    end = comma;
    const hop = parseIpAddress(withoutPort(useForwarded ? forValue(element) : element.trim()));
    if (hop === null) break;
    client = hop.text;
    if (!isTrusted(trust, hop)) break;
  }
  return client;
}

const FOR_PARAMETER = /(?:^|[;,\s])for\s*=/i;

/** The `for=` value of one Forwarded element, unquoted; '' when it has none. */
function forValue(element: string): string {
  for (const pair of element.split(";")) {
    const eq = pair.indexOf("=");
    if (eq === -1 || pair.slice(0, eq).trim().toLowerCase() !== "for") continue;
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
