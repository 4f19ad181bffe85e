import { parseIpAddress } from "../ip/address/parse.ts";
import { isGlobalUnicast } from "../ip/address/special-purpose.ts";
import { COUNTER_NAMES, type CounterName } from "../ip/verdict/report-counting.ts";

/** What a team's own service says an address did: the five counters of the verdict. */
export type ReportCategory = CounterName;
export const REPORT_CATEGORIES: readonly ReportCategory[] = COUNTER_NAMES;

export const MAX_COMMENT_BYTES = 1024;

export interface ReportSettings {
  /** A key's repeat of a report (same address and category) within this is a duplicate. */
  readonly dedupMs: number;
  /** The verdict counts the distinct keys that reported within this. */
  readonly windowMs: number;
  /** Reports older than this are pruned. */
  readonly retentionMs: number;
  /** Distinct addresses one key may report per day (UTC); its reports of further ones are refused. */
  readonly keyDailyLimit: number;
}

const DAY_MS = 86_400_000;
export const DEFAULT_REPORT_SETTINGS: ReportSettings = Object.freeze({
  dedupMs: DAY_MS,
  windowMs: 90 * DAY_MS,
  retentionMs: 365 * DAY_MS,
  keyDailyLimit: 10_000,
});

/** The start of the UTC day of `ms`: a key's daily limit counts from there. */
export function dayStartMs(ms: number): number {
  return ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
}

/** A report as a reporting service sends it, checked. */
export interface NewReport {
  /** The canonical text of the address (IPv6 in RFC 5952 form): one address, one spelling. */
  readonly ip: string;
  readonly category: ReportCategory;
  readonly comment: string | null;
}

/** A report as stored, with who made it and when. */
export interface StoredReport extends NewReport {
  readonly keyId: string;
  /** The key's name, for people; "" if the key is gone. */
  readonly keyName: string;
  readonly reportedAtMs: number;
}

/** Why one report was refused: the API's standard error codes. */
export type ReportProblem =
  | "invalid_report"
  | "invalid_ip"
  | "private_address"
  | "invalid_category"
  | "invalid_comment"
  | "limit_reached";

export const REPORT_PROBLEMS: Readonly<Record<ReportProblem, string>> = Object.freeze({
  invalid_report: 'A report is an object: {"ip": "…", "category": "bot|probe|rate|attack|crawler", "comment": "…"}',
  invalid_ip: "invalid IP address format",
  private_address: "Private, loopback and other reserved addresses cannot be reported",
  invalid_category: `The category must be one of ${REPORT_CATEGORIES.join(", ")}`,
  invalid_comment:
    `The comment must be text of at most ${MAX_COMMENT_BYTES} bytes, with no NUL character and no lone surrogate ` +
    `(\\u0000, \\ud800 …)`,
  limit_reached:
    "This key has reported as many distinct addresses today (UTC) as RISKCHECK_REPORT_KEY_DAILY_LIMIT allows; this report was not stored",
});

const FIELDS = new Set(["ip", "category", "comment"]);

/** One item of a report body, checked: the report, or what is wrong with it. */
export function checkReport(value: unknown): NewReport | { problem: ReportProblem } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { problem: "invalid_report" };
  const item = value as Record<string, unknown>;
  if (Object.keys(item).some((k) => !FIELDS.has(k))) return { problem: "invalid_report" };
  const ip = typeof item.ip === "string" ? parseIpAddress(item.ip) : null;
  if (ip === null) return { problem: "invalid_ip" };
  if (!isGlobalUnicast(ip)) return { problem: "private_address" };
  if (typeof item.category !== "string" || !(REPORT_CATEGORIES as readonly string[]).includes(item.category))
    return { problem: "invalid_category" };
  const comment = item.comment ?? null;
  if (
    comment !== null &&
    (typeof comment !== "string" || Buffer.byteLength(comment) > MAX_COMMENT_BYTES || !storableText(comment))
  )
    return { problem: "invalid_comment" };
  return { ip: ip.text, category: item.category as ReportCategory, comment };
}

/**
 * Text both stores keep as it was given: PostgreSQL's text holds no NUL character, and a
 * lone surrogate has no UTF-8 form (SQLite would store U+FFFD in its place).
 */
export function storableText(text: string): boolean {
  return !text.includes("\u0000") && text.isWellFormed();
}
