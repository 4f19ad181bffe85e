import { type AddressRange, cidrsOfRange, parseCidr } from "../address/address-range.ts";
import { specialPurposeName } from "../address/special-purpose.ts";
import { type LineInput, type LineStore, OverrideError, type OverrideRow, lineWords } from "../../email/overrides.ts";

/**
 * An operator's word on an address, a range or a network: never risky (allow, the verdict
 * `ok`) or always (deny, `bad`), whatever the feeds and reports say.
 */
export interface IpOverrideLine {
  /** As `ipOverrideTarget` writes it: "203.0.113.7", "203.0.113.0/24", "2001:db8::/32", "AS15169". */
  readonly target: string;
  readonly action: "allow" | "deny";
  readonly reason: string;
  /** Who added it: the operating-system user of the CLI, "dashboard", an API key's name, or the allowlist file. */
  readonly author: string;
  readonly created: string;
  /** From this instant on the line no longer applies; null: until removed. */
  readonly until: string | null;
  /** The id of the API key that added it (see OverrideLine). */
  readonly keyId?: string;
}

/** Where the lines are kept: SQLite or PostgreSQL, read by every running instance. */
export type IpOverrideStore = LineStore<IpOverrideLine>;

export const ipLineOfRow = (r: OverrideRow): IpOverrideLine => ({
  target: r.target,
  action: r.action,
  reason: r.reason,
  author: r.author,
  created: r.created_at,
  until: r.until,
  ...(r.key_id === null ? {} : { keyId: r.key_id }),
});

/** What a line is about, and the target as kept. */
export interface ParsedTarget {
  readonly kind: "address" | "range" | "asn";
  readonly text: string;
}

/**
 * "203.0.113.7", "203.0.113.0/24", "2001:DB8::/32" or "AS15169" (also "as15169") in the
 * form lines are kept in; a range with bits set below its prefix is refused, naming the
 * range it may have meant, rather than silently widened.
 */
export function ipOverrideTarget(input: string): ParsedTarget {
  const text = input.trim();
  const asn = /^AS(\d{1,10})$/i.exec(text);
  if (asn) {
    const number = Number(asn[1]);
    if (number === 0 || number > 0xffffffff || (asn[1].length > 1 && asn[1][0] === "0"))
      throw new OverrideError(`"${input}" is not an AS number (AS1 to AS4294967295)`, "invalid_target");
    return { kind: "asn", text: `AS${number}` };
  }
  const range = parseCidr(text);
  if (range === null)
    throw new OverrideError(
      `"${input}" is not an IP address, a CIDR range or an AS number (AS15169)`,
      "invalid_target",
    );
  const canonical = targetOfRange(range);
  if (text.includes("/") && parseCidr(text.slice(0, text.indexOf("/")))!.first !== range.first) {
    throw new OverrideError(`"${input}" has host bits set: the range is ${canonical}`, "invalid_target");
  }
  return { kind: canonical.includes("/") ? "range" : "address", text: canonical };
}

/** A CIDR range as a line's target: "203.0.113.0/24", or the address alone for a range of one. */
export function targetOfRange(range: AddressRange): string {
  const cidr = cidrsOfRange(range)[0];
  const slash = cidr.indexOf("/");
  return Number(cidr.slice(slash + 1)) === (range.version === 4 ? 32 : 128) ? cidr.slice(0, slash) : cidr;
}

/**
 * The broadest range a line may cover unless forced (`--force`, `"force": true`): a /8 of
 * IPv4, a /16 of IPv6. A broader line is a default for its space: any narrower line decides
 * before it, an AS line included (override-table.ts).
 */
export const BROADEST_PREFIX: Readonly<Record<4 | 6, number>> = Object.freeze({ 4: 8, 6: 16 });

/** The prefix length of a range target ("203.0.113.0/24": 24), or null for an address or an AS number. */
function prefixOf(target: string): { version: 4 | 6; length: number } | null {
  const slash = target.indexOf("/");
  if (slash === -1) return null;
  return { version: target.includes(":") ? 6 : 4, length: Number(target.slice(slash + 1)) };
}

/** What a forced line was forced past, for the audit log; null when the target needed no force. */
export function rangeForced(target: string): string | null {
  const prefix = prefixOf(target);
  if (prefix === null || prefix.length >= BROADEST_PREFIX[prefix.version]) return null;
  return `forced: a range broader than /${BROADEST_PREFIX[prefix.version]}`;
}

/**
 * Checks an operator's input and makes the line: the target in its kept form, not broader than
 * BROADEST_PREFIX unless `force`, and not only special-purpose space (private, loopback,
 * documentation, multicast…), which the check answers before any line and so never applies a
 * line to; a reason; an expiry in the future.
 */
export function ipOverrideLine(input: LineInput & { target: string }, now: Date): IpOverrideLine {
  const { kind, text } = ipOverrideTarget(input.target);
  if (kind !== "asn") {
    const special = specialPurposeName(parseCidr(text)!);
    if (special !== null)
      throw new OverrideError(
        `${text} lies in special-purpose space (${special}): the check answers its addresses as such without looking ` +
          `at any line, so a line there would never apply`,
        "special_purpose",
      );
  }
  if (!input.force && rangeForced(text) !== null) {
    const { version } = prefixOf(text)!;
    throw new OverrideError(
      `${text} is broader than a /${BROADEST_PREFIX[version]}: a line there would decide for ` +
        `${version === 4 ? "a large share of the internet" : "a large part of the IPv6 internet"}; name narrower ` +
        `ranges, or insist with --force`,
      "too_broad",
    );
  }
  return { target: text, ...lineWords(input, now) };
}

/** Whether the line applies at `nowMs`. */
export const isActive = (line: { until: string | null }, nowMs: number): boolean =>
  line.until === null || Date.parse(line.until) > nowMs;
