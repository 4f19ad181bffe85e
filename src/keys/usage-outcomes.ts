import type { UsageRow } from "./usage-store.ts";
import { USAGE_KINDS, type UsageKind, type Outcome, utcDay } from "./usage.ts";

/** What `keys usage` and the key page show: requests by what became of them, and the reports stored. */
export const OUTCOME_KINDS = [
  "answered",
  "rate_limited",
  "over_quota",
  "refused",
  "forbidden",
  "reports_accepted",
] as const;
export type OutcomeKind = (typeof OUTCOME_KINDS)[number];

const KIND_OF: Readonly<Record<Outcome, OutcomeKind>> = {
  ok: "answered",
  ok_unmetered: "answered",
  rate_limited: "rate_limited",
  quota_exceeded: "over_quota",
  bad_request: "refused",
  forbidden: "forbidden",
  reports_accepted: "reports_accepted",
};

export type OutcomeCounts = Record<OutcomeKind, number>;

export interface DayOutcomes extends OutcomeCounts {
  readonly day: string;
  /** The same counts for each endpoint that had any. */
  readonly endpoints: Partial<Record<UsageKind, OutcomeCounts>>;
}

const zero = (): OutcomeCounts => ({
  answered: 0,
  rate_limited: 0,
  over_quota: 0,
  refused: 0,
  forbidden: 0,
  reports_accepted: 0,
});

/** Every day of the last `days` (UTC) up to the one containing `nowMs`, oldest first, days without use as zeros. */
export function dailyOutcomes(rows: readonly UsageRow[], days: number, nowMs: number): DayOutcomes[] {
  const byDay = new Map<string, DayOutcomes>();
  for (let i = days - 1; i >= 0; i--) {
    const day = utcDay(nowMs - i * 86_400_000);
    byDay.set(day, { day, ...zero(), endpoints: {} });
  }
  for (const row of rows) {
    const entry = byDay.get(row.day);
    if (entry === undefined) continue;
    const kind = KIND_OF[row.outcome];
    (entry as OutcomeCounts)[kind] += row.count;
    const endpoints = entry.endpoints as Partial<Record<UsageKind, OutcomeCounts>>;
    (endpoints[row.endpoint] ??= zero())[kind] += row.count;
  }
  return [...byDay.values()].map((d) => ({
    ...d,
    endpoints: Object.fromEntries(USAGE_KINDS.filter((e) => d.endpoints[e]).map((e) => [e, d.endpoints[e]])),
  }));
}

/** The sums over days. */
export function outcomeTotals(days: readonly OutcomeCounts[]): OutcomeCounts {
  const total = zero();
  for (const d of days) for (const kind of OUTCOME_KINDS) total[kind] += d[kind];
  return total;
}
