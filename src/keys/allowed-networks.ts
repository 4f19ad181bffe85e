import { type AddressRange, parseCidr, rangeContains } from "../ip/address/address-range.ts";
import type { ParsedIp } from "../ip/address/parse.ts";

/** More than this is a firewall's job, not a key's. */
export const MAX_ALLOWED_NETWORKS = 100;

/**
 * "10.0.0.0/8, 2001:db8::/32, 192.0.2.7" as the list a key keeps (each entry trimmed, as
 * written); an empty text is the empty list (anywhere). An error sentence for anything else.
 */
export function parseAllowedNetworks(text: string): { networks: readonly string[] } | { error: string } {
  const networks = text
    .split(",")
    .map((w) => w.trim())
    .filter((w) => w !== "");
  const wrong = networks.find((n) => parseCidr(n) === null);
  if (wrong !== undefined)
    return { error: `"${wrong}" is not an address or CIDR (such as 10.0.0.0/8 or 2001:db8::/32)` };
  if (networks.length > MAX_ALLOWED_NETWORKS) return { error: `a key allows at most ${MAX_ALLOWED_NETWORKS} networks` };
  return { networks: [...new Set(networks)] };
}

/** A key, as far as its networks go. */
interface NetworksOfKey {
  readonly allowedNetworks: readonly string[];
}

const rangesOfKey = new WeakMap<NetworksOfKey, readonly AddressRange[]>();

/**
 * Whether a request from `client` may use the key: always when the key names no networks;
 * never without a client address (a request handed to the app in-process has none).
 * The ranges are parsed once per key record (records are rebuilt when keys change).
 */
export function allowedFrom(key: NetworksOfKey, client: ParsedIp | null): boolean {
  if (key.allowedNetworks.length === 0) return true;
  if (client === null) return false;
  let ranges = rangesOfKey.get(key);
  if (ranges === undefined) {
    ranges = key.allowedNetworks.map((n) => parseCidr(n)!);
    rangesOfKey.set(key, ranges);
  }
  return ranges.some((r) => rangeContains(r, client));
}
