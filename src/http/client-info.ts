import { type ProxyTrust, forwardedHttps, isTrusted, resolveClientAddress } from "../ip/address/client-address.ts";
import { type ParsedIp, parseIpAddress } from "../ip/address/parse.ts";
import type { ClientInfo } from "../dashboard/gate.ts";

/** The server a request came through, if any: null before it listens and for requests handed to the app in-process. */
export type Listening = () => Bun.Server<unknown> | null;

/** The client as seen through trusted proxies only; without a server (a request handed to the app in-process) there is no peer. */
export interface ClientResolver {
  /** Its address: the socket peer's, or the one the believed forwarding header names; null without an IP peer. */
  address(request: Request, server: Bun.Server<unknown> | null): ParsedIp | null;
  /** Its address as text, and whether it used TLS (a trusted proxy's word from the same header family). */
  info(request: Request, server: Bun.Server<unknown> | null): ClientInfo;
}

export function clientResolver(trust: ProxyTrust): ClientResolver {
  const peerOf = (request: Request, server: Bun.Server<unknown> | null) =>
    parseIpAddress(server?.requestIP(request)?.address ?? "");
  const address = (request: Request, server: Bun.Server<unknown> | null): ParsedIp | null => {
    const peer = peerOf(request, server);
    return peer === null || trust.proxies.length === 0 ? peer : resolveClientAddress(peer, request.headers, trust);
  };
  return {
    address,
    info(request, server) {
      const peer = peerOf(request, server);
      const direct = request.url.startsWith("https:");
      if (peer === null || trust.proxies.length === 0 || !isTrusted(trust, peer))
        return { address: peer?.text ?? "", https: direct };
      return {
        address: resolveClientAddress(peer, request.headers, trust).text,
        https: direct || forwardedHttps(trust, request.headers),
      };
    },
  };
}
