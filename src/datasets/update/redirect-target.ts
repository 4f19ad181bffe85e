import { isGlobalUnicast } from "../../ip/address/special-purpose.ts";
import { parseIpAddress } from "../../ip/address/parse.ts";

/**
 * Why a feed's redirect may not be followed, or null: a publisher (or whoever took over
 * its domain) must not steer the appliance at services only it can reach, such as
 * 127.0.0.1, the LAN or a cloud's metadata address 169.254.169.254. Names are resolved
 * and every address they give must be public.
 */
export async function refusedRedirect(url: URL): Promise<string | null> {
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `to a ${url.protocol.replace(/:$/, "")}: URL; only http and https are followed`;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const literal = parseIpAddress(host);
  let addresses: string[];
  if (literal) addresses = [host];
  else {
    try {
      addresses = (await Bun.dns.lookup(host)).map((a) => a.address);
    } catch {
      return `to ${url.host}, a name that does not resolve`;
    }
  }
  const internal = addresses.find((a) => {
    const ip = parseIpAddress(a);
    return ip === null || !isGlobalUnicast(ip);
  });
  return internal === undefined
    ? null
    : `to ${url.host}${literal ? "" : ` (${internal})`}, which is not a public address`;
}
