export const ENDPOINTS = ["email", "ip", "report"] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/**
 * What happened to an authenticated request; 401s have no key to count against. An IP
 * check's `ok` used a unit of the monthly quota; `ok_unmetered` is an answer that used
 * none (an address outside global unicast, answered without a lookup).
 */
export const OUTCOMES = ["ok", "bad_request", "rate_limited", "quota_exceeded", "ok_unmetered"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const COUNTER_SLOTS = ENDPOINTS.length * OUTCOMES.length;

export function counterSlot(endpoint: Endpoint, outcome: Outcome): number {
  return ENDPOINTS.indexOf(endpoint) * OUTCOMES.length + OUTCOMES.indexOf(outcome);
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function utcMonthStart(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7) + "-01";
}
