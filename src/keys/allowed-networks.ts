import { type AddressRange, cidrsOfRange, parseCidr, rangeContains } from "../ip/address/address-range.ts";
import type { ParsedIp } from "../ip/address/parse.ts";

/** More than this is a firewall's job, not a key's. */
export const MAX_ALLOWED_NETWORKS = 100;

/** The word that names every network: a key used from anywhere. */
export const ANYWHERE = "any";

/**
 * What an operator typed (`--allow-from`, the key page): "10.0.0.0/8, 2001:db8::/32, 192.0.2.7"
 * as the list a key keeps, or `any` (any case) for anywhere, the empty list. An empty text is
 * refused rather than read as anywhere: `--allow-from "$NETS"` with NETS unset must not open a
 * key to every network. An error sentence for that and for anything else wrong.
 */
export function parseAllowedNetworks(text: string): { networks: readonly string[] } | { error: string } {
  const trimmed = text.trim();
  if (trimmed.toLowerCase() === ANYWHERE) return { networks: [] };
  if (trimmed === "")
    return { error: `give the networks the key may be used from, or "${ANYWHERE}" for anywhere; the text was empty` };
  return allowedNetworksOf(trimmed.split(",").map((w) => w.trim()));
}

/**
 * The list a key keeps, each entry checked: an address or a CIDR range without host bits
 * (`10.0.0.1/8` is refused, naming 10.0.0.0/8, as an override line's range is), none empty,
 * at most MAX_ALLOWED_NETWORKS; duplicates kept once. The empty list is anywhere.
 */
export function allowedNetworksOf(entries: readonly string[]): { networks: readonly string[] } | { error: string } {
  for (const entry of entries) {
    if (entry === "") return { error: "an entry of the list is empty (two commas, or one at an end)" };
    const range = parseCidr(entry);
    if (range === null) return { error: `"${entry}" is not an address or CIDR (such as 10.0.0.0/8 or 2001:db8::/32)` };
    const slash = entry.indexOf("/");
    if (slash !== -1 && parseCidr(entry.slice(0, slash))!.first !== range.first)
      return { error: `"${entry}" has host bits set: the network is ${cidrsOfRange(range)[0]}` };
  }
  if (entries.length > MAX_ALLOWED_NETWORKS) return { error: `a key allows at most ${MAX_ALLOWED_NETWORKS} networks` };
  return { networks: [...new Set(entries)] };
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
