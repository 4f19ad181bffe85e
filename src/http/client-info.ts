import { type ProxyTrust, isTrusted, resolveClientAddress } from "../ip/client-address.ts";
import { parseIpAddress } from "../ip/parse.ts";
import type { ClientInfo } from "./routes/dashboard.ts";

/**
 * The client as seen through trusted proxies only: its address from the forwarding
 * headers, and TLS from X-Forwarded-Proto / Forwarded proto= when a trusted proxy
 * terminated it.
 */
export function clientInfoResolver(trust: ProxyTrust) {
  return (request: Request, server: Bun.Server<unknown> | null): ClientInfo => {
    const peer = server?.requestIP(request)?.address ?? "";
    const headers = request.headers;
    if (trust.proxies.length === 0 || !isTrusted(trust, parseIpAddress(peer))) {
      return { address: parseIpAddress(peer)?.text ?? peer, https: request.url.startsWith("https:") };
    }
    const forwarded = headers.get("forwarded");
    const address = resolveClientAddress(peer, { forwarded, forwardedFor: headers.get("x-forwarded-for") }, trust);
    const proto = forwarded ? /(?:^|[;,\s])proto=("?)https\1/i.test(forwarded) : headers.get("x-forwarded-proto")?.split(",")[0].trim().toLowerCase() === "https";
    return { address, https: proto || request.url.startsWith("https:") };
  };
}
