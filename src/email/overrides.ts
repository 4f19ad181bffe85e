import { getDomain } from "tldts";
import { parseDateText, untilMs } from "../time/calendar-date.ts";
import { nearest, normaliseDomain } from "./domain-name.ts";

/** An operator's word on one domain and its subdomains: never disposable (allow) or always (deny). */
export interface OverrideLine {
  readonly domain: string;
  readonly action: "allow" | "deny";
  readonly reason: string;
  /** Who added it: the operating-system user of the CLI, or "dashboard". */
  readonly author: string;
  readonly created: string;
  /** From this instant on the line no longer applies; null: until removed. */
  readonly until: string | null;
}

/** Where override lines are kept: SQLite or PostgreSQL, read by every running instance. */
export interface OverrideStore {
  list(): Promise<OverrideLine[]>;
  /** Adds the line, replacing any line for the same domain. */
  put(line: OverrideLine): Promise<void>;
  /** Whether a line was there to remove. */
  remove(domain: string): Promise<boolean>;
}

/** A line as both databases keep it. */
export interface OverrideRow {
  domain: string;
  action: "allow" | "deny";
  reason: string;
  author: string;
  created_at: string;
  until: string | null;
}

export const lineOfRow = (r: OverrideRow): OverrideLine => ({
  domain: r.domain,
  action: r.action,
  reason: r.reason,
  author: r.author,
  created: r.created_at,
  until: r.until,
});

/** Why a line was refused; `code` names the kind for the admin API's error body (the CLI and the dashboard show the message). */
export type OverrideErrorCode =
  | "invalid_target"
  | "public_suffix"
  | "missing_reason"
  | "invalid_reason"
  | "invalid_until"
  | "until_passed";

export class OverrideError extends Error {
  constructor(
    message: string,
    readonly code: OverrideErrorCode = "invalid_target",
  ) {
    super(message);
  }
}

const MAX_REASON_LENGTH = 500;

/**
 * Checks an operator's input and makes the line: the domain normalised like an address's
 * and not a public suffix (`co.uk`, `com`: a line there would cover every domain under it)
 * unless `force`; a reason that says something and that every store keeps as given (no NUL
 * character, no lone surrogate); an expiry in the future (`YYYY-MM-DD` means the end of
 * that day, UTC; or a full ISO timestamp), a day that exists.
 */
export function overrideLine(
  input: {
    domain: string;
    action: "allow" | "deny";
    reason: string;
    author: string;
    until?: string | null;
    force?: boolean;
  },
  now: Date,
): OverrideLine {
  const domain = normaliseDomain(input.domain.trim());
  if (domain === null) throw new OverrideError(`"${input.domain}" is not a domain name`, "invalid_target");
  if (!input.force && getDomain(domain) === null) {
    throw new OverrideError(
      `${domain} is a public suffix: a line there would make every domain under it ` +
        `${input.action === "deny" ? "disposable" : "never disposable"}; name the registered domain, or insist with ` +
        `--force`,
      "public_suffix",
    );
  }
  const { reason, until } = overrideTerms(input, now);
  return { domain, action: input.action, reason, author: input.author, created: now.toISOString(), until };
}

/** The reason and expiry of any override line, email or IP, checked. */
export function overrideTerms(
  input: { reason: string; until?: string | null },
  now: Date,
): { reason: string; until: string | null } {
  const reason = input.reason.trim();
  if (reason === "")
    throw new OverrideError("say why with --reason: the line has to be defended to whoever asks", "missing_reason");
  if (reason.length > MAX_REASON_LENGTH)
    throw new OverrideError(`the reason can have at most ${MAX_REASON_LENGTH} characters`, "invalid_reason");
  if (reason.includes("\u0000") || !reason.isWellFormed())
    throw new OverrideError("the reason must be text without NUL characters or lone surrogates", "invalid_reason");
  const until = input.until ? expiryOf(input.until) : null;
  if (until !== null && Date.parse(until) <= now.getTime())
    throw new OverrideError(`--until ${input.until} has already passed`, "until_passed");
  return { reason, until };
}

function expiryOf(text: string): string {
  const date = parseDateText(text);
  if (date === null)
    throw new OverrideError(
      `--until "${text}" is not a date (YYYY-MM-DD, a day that exists, the day included; or an ISO timestamp with its offset)`,
      "invalid_until",
    );
  return new Date(untilMs(date)).toISOString();
}

/** The lines that apply at `nowMs`, by domain. */
export function activeOverrides(lines: readonly OverrideLine[], nowMs: number): Map<string, OverrideLine> {
  const active = new Map<string, OverrideLine>();
  for (const line of lines) if (line.until === null || Date.parse(line.until) > nowMs) active.set(line.domain, line);
  return active;
}

/** The line for `domain` or its nearest parent, or undefined. */
export function overrideFor(overrides: ReadonlyMap<string, OverrideLine>, domain: string): OverrideLine | undefined {
  return nearest(domain, (name) => overrides.get(name));
}
