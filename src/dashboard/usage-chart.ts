import { type SafeHtml, html } from "./html.ts";

export interface DailyCount {
  day: string;
  email: number;
  ip: number;
}

const WIDTH = 150;
const HEIGHT = 32;

/** Stacked bars, one per day (IP checks below, email checks above), as inline SVG. */
export function usageChart(days: readonly DailyCount[], label: string): SafeHtml {
  const max = Math.max(1, ...days.map((d) => d.email + d.ip));
  const step = WIDTH / days.length;
  const barWidth = Math.max(1, step - 2);
  const bars = days.map((d, i) => {
    const x = (i * step).toFixed(1);
    const ipHeight = (d.ip / max) * HEIGHT;
    const emailHeight = (d.email / max) * HEIGHT;
    return html`<g><title>${d.day}: ${d.email} email, ${d.ip} IP</title><rect class="ip" x="${x}" y="${(HEIGHT - ipHeight).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${ipHeight.toFixed(1)}"/><rect class="email" x="${x}" y="${(HEIGHT - ipHeight - emailHeight).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${emailHeight.toFixed(1)}"/></g>`;
  });
  const total = days.reduce((sum, d) => sum + d.email + d.ip, 0);
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${label}: ${total} requests in the last ${days.length} days, at most ${max} a day">${bars}<line class="axis" x1="0" y1="${HEIGHT}" x2="${WIDTH}" y2="${HEIGHT}"/></svg>`;
}

/** One entry per day for the `days` days ending today (UTC), zeros where nothing was counted. */
export function lastDays(rows: readonly { day: string; endpoint: string; count: number }[], days: number, nowMs: number): DailyCount[] {
  const series: DailyCount[] = [];
  const index = new Map<string, DailyCount>();
  for (let i = days - 1; i >= 0; i--) {
    const entry = { day: new Date(nowMs - i * 86_400_000).toISOString().slice(0, 10), email: 0, ip: 0 };
    series.push(entry);
    index.set(entry.day, entry);
  }
  for (const r of rows) {
    const entry = index.get(r.day);
    if (entry && (r.endpoint === "email" || r.endpoint === "ip")) entry[r.endpoint] += r.count;
  }
  return series;
}
