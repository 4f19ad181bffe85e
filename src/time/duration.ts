const UNITS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "30m", "24h", "7d" in milliseconds; null for anything else. */
export function parseDuration(text: string): number | null {
  const match = /^(\d{1,6})(s|m|h|d)$/.exec(text);
  return match && Number(match[1]) > 0 ? Number(match[1]) * UNITS[match[2]] : null;
}

/**
 * The duration in the largest unit that divides it, as the settings spell it: days only from
 * two days on (86_400_000 → "24h", as the defaults and docs/configuration.md say; 7_776_000_000 → "90d"),
 * 90_000 → "90s".
 */
export function formatDuration(ms: number): string {
  for (const unit of ["d", "h", "m", "s"])
    if (ms % UNITS[unit] === 0 && (unit !== "d" || ms >= 2 * UNITS.d)) return `${ms / UNITS[unit]}${unit}`;
  return `${ms}ms`;
}
