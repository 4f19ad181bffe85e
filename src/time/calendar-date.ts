const DAY_MS = 86_400_000;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/i;

/** What an operator wrote for a date: a whole day (UTC), or one instant. */
export type DateText = { readonly day: true; readonly startMs: number } | { readonly day: false; readonly ms: number };

function realDay(year: number, month: number, day: number): boolean {
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= new Date(Date.UTC(2000, month, 0)).getUTCDate() &&
    (month !== 2 || day !== 29 || (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)))
  );
}

/**
 * `YYYY-MM-DD` or an ISO 8601 instant with its offset (`2027-01-31T18:00:00Z`,
 * `…+02:00`), checked field by field: a day that does not exist (`2027-02-30`), hour 24 or
 * minute 60 is null, never rolled over into the next month as Date.parse would.
 */
export function parseDateText(text: string): DateText | null {
  const day = DAY.exec(text);
  if (day) return realDay(+day[1], +day[2], +day[3]) ? { day: true, startMs: Date.parse(`${text}T00:00:00Z`) } : null;
  const at = INSTANT.exec(text);
  if (!at || !realDay(+at[1], +at[2], +at[3])) return null;
  if (
    +at[4] > 23 ||
    +at[5] > 59 ||
    (at[6] !== undefined && +at[6] > 59) ||
    (at[7] !== undefined && (+at[7] > 23 || +at[8] > 59))
  )
    return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : { day: false, ms };
}

/** The instant an `--until` ends at: a day is included whole (its end, midnight UTC after it). */
export function untilMs(date: DateText): number {
  return date.day ? date.startMs + DAY_MS : date.ms;
}

/** The instant a `--since` starts at: a day from its start (midnight UTC). */
export function sinceMs(date: DateText): number {
  return date.day ? date.startMs : date.ms;
}

/**
 * An expiry as the operator gave it: one set with a day (stored as the midnight after it)
 * reads `2027-01-31` again, one set with an instant reads as that instant.
 */
export function untilText(until: string): string {
  const ms = Date.parse(until);
  return ms % DAY_MS === 0 ? new Date(ms - DAY_MS).toISOString().slice(0, 10) : until;
}
