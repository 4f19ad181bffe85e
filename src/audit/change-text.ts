import type { AuditChange } from "./audit-event.ts";

/** A change as one line of text: `name: "old" → "new"; ratePerMinute: null → 60`. */
export function changeText(change: AuditChange | null): string {
  if (change === null) return "";
  return Object.entries(change)
    .map(([name, { before, after }]) => `${name}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`)
    .join("; ");
}
