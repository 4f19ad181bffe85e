/** What a key's usage is counted under: the kind of check or the report, not a URL path (a batch counts its items by kind). */
export const USAGE_KINDS = ["email", "ip", "report", "manage", "assess"] as const;
export type UsageKind = (typeof USAGE_KINDS)[number];

/**
 * What happened to an authenticated request; 401s have no key to count against. An IP
 * check's or an assessment's `ok` used a unit of the monthly quota; `ok_unmetered` is an answer that used
 * none (an address outside global unicast, answered without a lookup). `forbidden`: from a
 * client address outside the key's allowed networks. `reports_accepted` is no request's
 * outcome: the reports a key's requests stored (endpoint `report`), left out of request totals.
 */
export const OUTCOMES = [
  "ok",
  "bad_request",
  "rate_limited",
  "quota_exceeded",
  "ok_unmetered",
  "forbidden",
  "reports_accepted",
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const COUNTER_SLOTS = USAGE_KINDS.length * OUTCOMES.length;

export function counterSlot(kind: UsageKind, outcome: Outcome): number {
  return USAGE_KINDS.indexOf(kind) * OUTCOMES.length + OUTCOMES.indexOf(outcome);
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function utcMonthStart(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 7)}-01`;
}
