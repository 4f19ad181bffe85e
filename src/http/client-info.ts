import { type ProxyTrust, forwardedHttps, isTrusted, resolveClientAddress } from "../ip/address/client-address.ts";
import { parseIpAddress } from "../ip/address/parse.ts";
import type { ClientInfo } from "./routes/dashboard.ts";

/**
 * The client as seen through trusted proxies only: its address from the one believed
 * forwarding header, and TLS from the same header family when a trusted proxy
 * terminated it.
 */
export function clientInfoResolver(trust: ProxyTrust) {
  return (request: Request, server: Bun.Server<unknown> | null): ClientInfo => {
    const peer = server?.requestIP(request)?.address ?? "";
    const direct = request.url.startsWith("https:");
    if (trust.proxies.length === 0 || !isTrusted(trust, parseIpAddress(peer))) {
      return { address: parseIpAddress(peer)?.text ?? peer, https: direct };
    }
    return { address: resolveClientAddress(peer, request.headers, trust), https: direct || forwardedHttps(trust, request.headers) };
  };
}
