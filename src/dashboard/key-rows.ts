import type { KeyStore } from "../keys/key-store.ts";
import type { UsageStore } from "../keys/usage-store.ts";
import type { KeyRow } from "./pages/keys.ts";
import { lastDays, usageChart } from "./usage-chart.ts";

const CHART_DAYS = 30;

export function keyRows(keys: KeyStore, usage: UsageStore, defaultIpQuota: number, nowMs: number): KeyRow[] {
  const totals = usage.totals(nowMs);
  return keys
    .list()
    .sort((a, b) => Number(a.revokedAt !== null) - Number(b.revokedAt !== null) || b.createdAt.localeCompare(a.createdAt))
    .map((key) => {
      const t = totals.get(key.id);
      const quota = key.ipQuotaPerMonth ?? defaultIpQuota;
      return {
        key,
        today: { email: t?.today.email ?? 0, ip: t?.today.ip ?? 0 },
        month: { email: t?.month.email ?? 0, ip: t?.month.ip ?? 0 },
        quota: quota === 0 ? null : quota,
        quotaLeft: quota === 0 ? null : Math.max(0, quota - (t?.ipQuotaUsed ?? 0)),
        chart: usageChart(lastDays(usage.daily(key.id, CHART_DAYS, nowMs), CHART_DAYS, nowMs), `Usage of ${key.name}`),
      };
    });
}
