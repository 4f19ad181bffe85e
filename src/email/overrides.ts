import { parseDateText, untilMs } from "../time/calendar-date.ts";
import { nearest, normaliseDomain } from "./domain-name.ts";
import { isPublicSuffix } from "./public-suffix.ts";

/** An operator's word on one domain and its subdomains: never disposable (allow) or always (deny). */
export interface OverrideLine {
  readonly domain: string;
  readonly action: "allow" | "deny";
  readonly reason: string;
  /** Who added it: the operating-system user of the CLI, "dashboard", or an API key's name. */
  readonly author: string;
  readonly created: string;
  /** From this instant on the line no longer applies; null: until removed. */
  readonly until: string | null;
  /** The id of the API key that added it, which counts it against the key's limit; absent for the CLI and the dashboard. */
  readonly keyId?: string;
}

/** Which lines a page holds: every filter given must hold. */
export interface LineFilter {
  readonly action?: "allow" | "deny";
  /** Text the target starts with: "203.0.113.", "example.", "AS64". */
  readonly prefix?: string;
}

/** How many lines of one kind are stored, and how many of them one API key added. */
export interface LineCounts {
  readonly total: number;
  readonly byKey: number;
}

/**
 * What changed in the store since a generation a reader last saw: each target changed, with
 * its line as it is now (null: removed), in the order of the changes; or, for a reader that
 * never read or has fallen too far behind, every line.
 */
export type LineChanges<L> =
  | { readonly generation: number; readonly changed: readonly { readonly target: string; readonly line: L | null }[] }
  | { readonly generation: number; readonly all: readonly L[] };

/**
 * Where one kind of override line is kept, by target (a domain; an address, a range or an AS
 * number): SQLite or PostgreSQL, read by every running instance. Every call costs a lookup
 * by target or a page, except `list` and a first `changesSince`.
 */
export interface LineStore<L> {
  /** Every line, in target order. */
  list(): Promise<L[]>;
  /** At most `limit` lines in target order, after the target `after` (null: from the first), that the filter holds. */
  page(filter: LineFilter, after: string | null, limit: number): Promise<L[]>;
  find(target: string): Promise<L | null>;
  /** Adds the line, replacing any line for the same target. */
  put(line: L): Promise<void>;
  /** Whether a line was there to remove. */
  remove(target: string): Promise<boolean>;
  /** The lines stored, and those `keyId` added (0 for null). Inside an act, the counts are the act's until it ends. */
  counts(keyId: string | null): Promise<LineCounts>;
  /** What changed since `generation` (null: never read). */
  changesSince(generation: number | null): Promise<LineChanges<L>>;
}

export type OverrideStore = LineStore<OverrideLine>;

/** A line as both databases keep it. */
export interface OverrideRow {
  target: string;
  action: "allow" | "deny";
  reason: string;
  author: string;
  created_at: string;
  until: string | null;
  key_id: string | null;
}

export const lineOfRow = (r: OverrideRow): OverrideLine => ({
  domain: r.target,
  action: r.action,
  reason: r.reason,
  author: r.author,
  created: r.created_at,
  until: r.until,
  ...(r.key_id === null ? {} : { keyId: r.key_id }),
});

/** Why a line was refused; `code` names the kind for the admin API's error body (the CLI and the dashboard show the message). */
export type OverrideErrorCode =
  | "invalid_target"
  | "public_suffix"
  | "missing_reason"
  | "invalid_reason"
  | "invalid_until"
  | "until_passed"
  | "limit_reached"
  | "special_purpose"
  | "too_broad";

export class OverrideError extends Error {
  constructor(
    message: string,
    readonly code: OverrideErrorCode = "invalid_target",
  ) {
    super(message);
  }
}

const MAX_REASON_LENGTH = 500;

/** How many lines of each kind the server keeps, and how many of them one API key may add (RISKCHECK_MAX_OVERRIDE_LINES…). */
export interface OverrideLimits {
  readonly lines: number;
  readonly linesPerKey: number;
}

export const DEFAULT_OVERRIDE_LIMITS: OverrideLimits = Object.freeze({ lines: 100_000, linesPerKey: 10_000 });

/** Whether two lines say the same: a line put again as it is changes nothing (its author and date stay). */
export const sameWords = (a: Pick<OverrideLine, "action" | "reason" | "until">, b: typeof a): boolean =>
  a.action === b.action && a.reason === b.reason && a.until === b.until;

/**
 * Checks an operator's input and makes the line: the domain normalised like an address's
 * and not a public suffix — of the list's ICANN section (`co.uk`, `com`) or its private one
 * (`github.io`, where anyone registers a name): a line there would cover every domain under
 * it — unless `force`; a reason that says something, one line of visible text;
 * an expiry in the future (`YYYY-MM-DD` means the end of that day, UTC; or a full ISO
 * timestamp), a day that exists.
 */
export function overrideLine(input: LineInput & { domain: string }, now: Date): OverrideLine {
  const domain = normaliseDomain(input.domain.trim());
  if (domain === null) throw new OverrideError(`"${input.domain}" is not a domain name`, "invalid_target");
  if (!input.force && isPublicSuffix(domain)) {
    throw new OverrideError(
      `${domain} is a public suffix: a line there would make every domain under it ` +
        `${input.action === "deny" ? "disposable" : "never disposable"}; name the registered domain, or insist with ` +
        `--force`,
      "public_suffix",
    );
  }
  return { domain, ...lineWords(input, now) };
}

/** What a forced line was forced past, for the audit log; null when the domain needed no force. */
export function publicSuffixForced(domain: string): string | null {
  return isPublicSuffix(domain) ? "forced: a public suffix, the line covers every domain under it" : null;
}

/** What an operator gives for an override line of either kind, but its target. */
export interface LineInput {
  readonly action: "allow" | "deny";
  readonly reason: string;
  readonly author: string;
  readonly until?: string | null;
  /** The API key that adds it. */
  readonly keyId?: string;
  /** A target broader than a line may otherwise be (a public suffix, a range broader than /8). */
  readonly force?: boolean;
}

/** Everything of a line of either kind but its target, checked: made now. */
export function lineWords(input: LineInput, now: Date): Omit<OverrideLine, "domain"> {
  const { reason, until } = overrideTerms(input, now);
  return {
    action: input.action,
    reason,
    author: input.author,
    created: now.toISOString(),
    until,
    ...(input.keyId === undefined ? {} : { keyId: input.keyId }),
  };
}

/** The reason and expiry of any override line, email or IP, checked. */
function overrideTerms(
  input: { reason: string; until?: string | null },
  now: Date,
): { reason: string; until: string | null } {
  const reason = input.reason.trim();
  if (reason === "")
    throw new OverrideError("say why with --reason: the line has to be defended to whoever asks", "missing_reason");
  if (reason.length > MAX_REASON_LENGTH)
    throw new OverrideError(`the reason can have at most ${MAX_REASON_LENGTH} characters`, "invalid_reason");
  // As a key's name: control characters (ESC, CR/LF, BEL) would corrupt one-line CLI output and
  // logs; format characters (bidi overrides, zero-width ones) and line separators make it read as something else.
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(reason) || !reason.isWellFormed())
    throw new OverrideError(
      "the reason must be one line of text, without control or invisible formatting characters (such as " +
        "bidirectional overrides) or lone surrogates",
      "invalid_reason",
    );
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
