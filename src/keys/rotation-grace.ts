import { formatDuration, parseDuration } from "../time/duration.ts";

/** The longest a rotated key's previous secret may keep working: a month is time enough to deploy the new one. */
export const MAX_GRACE_MS = 30 * 86_400_000;

/**
 * How long the previous secret keeps working after a rotation, as `keys rotate --grace` and
 * the key page take it: a duration (90s, 30m, 24h, 7d) up to 30 days, or 0 for not at all.
 */
export function parseGrace(text: string): { graceMs: number } | { error: string } {
  const value = text.trim();
  const ms = value === "0" ? 0 : parseDuration(value);
  if (ms === null) return { error: `a grace is a duration such as 90s, 30m, 24h or 7d, or 0; got "${value}"` };
  if (ms > MAX_GRACE_MS)
    return {
      error: `a grace is at most ${formatDuration(MAX_GRACE_MS)}, so that the previous secret stops; got "${value}"`,
    };
  return { graceMs: ms };
}
