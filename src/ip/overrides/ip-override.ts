import { type AddressRange, cidrsOfRange, parseCidr } from "../address/address-range.ts";
import { OverrideError, overrideTerms } from "../../email/overrides.ts";

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
}

/** Where the lines are kept: SQLite or PostgreSQL, read by every running instance. */
export interface IpOverrideStore {
  list(): Promise<IpOverrideLine[]>;
  /** Adds the line, replacing any line for the same target. */
  put(line: IpOverrideLine): Promise<void>;
  /** Whether a line was there to remove. */
  remove(target: string): Promise<boolean>;
  /** A number that moves whenever any process adds, replaces or removes a line: cheap to ask every second. */
  generation(): Promise<number>;
}

/** A line as both databases keep it. */
export interface IpOverrideRow {
  target: string;
  action: "allow" | "deny";
  reason: string;
  author: string;
  created_at: string;
  until: string | null;
}

export const ipLineOfRow = (r: IpOverrideRow): IpOverrideLine => ({
  target: r.target,
  action: r.action,
  reason: r.reason,
  author: r.author,
  created: r.created_at,
  until: r.until,
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

/** Checks an operator's input and makes the line: the target in its kept form, a reason, an expiry in the future. */
export function ipOverrideLine(
  input: { target: string; action: "allow" | "deny"; reason: string; author: string; until?: string | null },
  now: Date,
): IpOverrideLine {
  const { text } = ipOverrideTarget(input.target);
  const { reason, until } = overrideTerms(input, now);
  return { target: text, action: input.action, reason, author: input.author, created: now.toISOString(), until };
}

/** Whether the line applies at `nowMs`. */
export const isActive = (line: { until: string | null }, nowMs: number): boolean =>
  line.until === null || Date.parse(line.until) > nowMs;
