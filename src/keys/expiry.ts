import { parseDuration } from "../time/duration.ts";

/** The furthest an expiry may lie ahead: beyond, `never` says what is meant. */
const MAX_EXPIRY_MS = 10 * 366 * 86_400_000;

/**
 * When a key expires, as `--expires` and the dashboard take it: a duration from now ("30d",
 * "12h"), a date ("2027-01-31": the key works until that day begins, UTC), or a date and time
 * with its zone ("2027-01-31T18:00:00Z", "…+02:00", or "2027-01-31 18:00 UTC" as the pages show
 * it), at most ten years ahead. `never` (or empty) removes the expiry.
 * The ISO instant, null for never, or an error sentence.
 */
export function parseExpiry(text: string, nowMs: number): { expiresAt: string | null } | { error: string } {
  const value = text.trim();
  if (value === "" || value.toLowerCase() === "never") return { expiresAt: null };
  const duration = parseDuration(value);
  if (duration !== null) return bounded(nowMs + duration, value, nowMs);
  const shown = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}) UTC$/i.exec(value);
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value)
    ? `${value}T00:00:00Z`
    : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/i.test(value)
      ? value
      : shown
        ? `${shown[1]}T${shown[2]}:00Z`
        : null;
  const ms = date !== null && calendarDate(date.slice(0, 10)) ? Date.parse(date) : Number.NaN;
  if (Number.isNaN(ms)) {
    return {
      error:
        `"${value}" is not an expiry: give a duration (30d, 12h), a date (2027-01-31) or a date and time with its ` +
        `zone (2027-01-31T18:00:00Z), or never`,
    };
  }
  if (ms <= nowMs)
    return {
      error: `${new Date(ms).toISOString()} has passed; an expiry is in the future (revoke a key to stop it now)`,
    };
  return bounded(ms, value, nowMs);
}

function bounded(ms: number, value: string, nowMs: number): { expiresAt: string } | { error: string } {
  if (ms - nowMs > MAX_EXPIRY_MS)
    return { error: `"${value}" is more than ten years ahead; for a key that never expires, say never` };
  return { expiresAt: new Date(ms).toISOString() };
}

/** Whether "YYYY-MM-DD" is a day of the calendar (Date.parse would roll 2027-02-30 over to March). */
function calendarDate(ymd: string): boolean {
  const [y, m, d] = ymd.split("-").map(Number);
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}
