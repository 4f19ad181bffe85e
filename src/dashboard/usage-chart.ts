import { type DayOutcomes, type OutcomeKind, outcomeTotals } from "../keys/usage-outcomes.ts";
import { type SafeHtml, html } from "./html.ts";

/** The request outcomes the chart stacks, bottom up, with their legend's words. */
const STACKED: readonly { kind: Exclude<OutcomeKind, "reports_accepted">; label: string }[] = [
  { kind: "answered", label: "Answered" },
  { kind: "refused", label: "Refused (invalid input)" },
  { kind: "rate_limited", label: "Rate-limited" },
  { kind: "over_quota", label: "Over quota" },
  { kind: "forbidden", label: "Forbidden (network)" },
];

const WIDTH = 720;
const HEIGHT = 260;
// Room for the axes' text at the phone size too (assets.ts: twice the font size in these units).
const LEFT = 64;
const RIGHT = 44;
const TOP = 12;
const BOTTOM = 36;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;
const TICKS = 4;

const number = (n: number) => n.toLocaleString("en-US");
const compact = (n: number) =>
  new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 }).format(n);
const requests = (d: DayOutcomes) => STACKED.reduce((sum, { kind }) => sum + d[kind], 0);
const quiet = (d: DayOutcomes) => requests(d) === 0 && d.reports_accepted === 0;
const monthDay = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" });

/** The smallest of 1, 2, 2.5 or 5 × 10ⁿ that holds `max` in TICKS whole steps. */
function scaleTop(max: number): number {
  if (max <= TICKS) return TICKS;
  const rough = max / TICKS;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= rough && Number.isInteger(s))!;
  return step * TICKS;
}

/**
 * A key's requests per day by outcome, as stacked bars over labelled axes (requests on the
 * left, dates below), with a legend giving each outcome's total and a table of every day's
 * numbers beneath; each bar's tooltip has the day's figures.
 */
export function outcomeChart(days: readonly DayOutcomes[]): SafeHtml {
  const top = scaleTop(Math.max(0, ...days.map(requests)));
  const y = (value: number) => TOP + PLOT_H - (value / top) * PLOT_H;
  const step = PLOT_W / days.length;
  const barWidth = Math.max(1, step * 0.7);
  const grid = Array.from({ length: TICKS + 1 }, (_, i) => {
    const value = (top / TICKS) * i;
    return html`<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}"/><text class="tick" x="${LEFT - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${compact(value)}</text>`;
  });
  const bars = days.map((d, i) => {
    const x = (LEFT + i * step + (step - barWidth) / 2).toFixed(1);
    let base = 0;
    const segments = STACKED.map(({ kind }) => {
      if (d[kind] === 0) return "";
      const segment = html`<rect class="${kind}" x="${x}" y="${y(base + d[kind]).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${((d[kind] / top) * PLOT_H).toFixed(1)}"/>`;
      base += d[kind];
      return segment;
    });
    const tip = `${monthDay(d.day)}: ${STACKED.map(({ kind, label }) => `${label.toLowerCase()} ${number(d[kind])}`).join(", ")}; reports accepted ${number(d.reports_accepted)}`;
    return html`<g><title>${tip}</title><rect class="hit" x="${(LEFT + i * step).toFixed(1)}" y="${TOP}" width="${step.toFixed(1)}" height="${PLOT_H}"/>${segments}</g>`;
  });
  const labelEvery = Math.max(1, Math.ceil(days.length / 6));
  const dates = days.map((d, i) =>
    (days.length - 1 - i) % labelEvery === 0
      ? html`<text class="tick" x="${(LEFT + i * step + step / 2).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle">${monthDay(d.day)}</text>`
      : "",
  );
  const totals = outcomeTotals(days);
  const first = days[0]?.day ?? "";
  const last = days.at(-1)?.day ?? "";
  return html`<figure class="outcomes">
<svg class="outcome-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Requests per day by outcome, ${first} to ${last}: ${STACKED.map(({ kind, label }) => `${label} ${number(totals[kind])}`).join(", ")}">
${grid}<line class="axis" x1="${LEFT}" x2="${LEFT}" y1="${TOP}" y2="${TOP + PLOT_H}"/><line class="axis" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${TOP + PLOT_H}" y2="${TOP + PLOT_H}"/>
<text class="tick axis-title" x="12" y="${TOP + PLOT_H / 2}" text-anchor="middle" transform="rotate(-90 12 ${TOP + PLOT_H / 2})">requests</text>
${bars}${dates}</svg>
<figcaption><ul class="legend">${STACKED.map(({ kind, label }) => html`<li><span class="swatch ${kind}"></span>${label}: <strong>${number(totals[kind])}</strong></li>`)}<li>Reports accepted: <strong>${number(totals.reports_accepted)}</strong></li></ul>
<span class="muted">Days in UTC, ${first} to ${last}; counted up to the last flush (every 5 s).</span></figcaption>
</figure>
<details><summary>Every day's numbers</summary><div class="table-wrap"><table class="numbers">
<thead><tr><th>Day</th>${STACKED.map(({ label }) => html`<th class="num">${label}</th>`)}<th class="num">Reports accepted</th></tr></thead>
<tbody>${dayRuns([...days].reverse()).map((run) =>
    "quietFrom" in run
      ? html`<tr class="quiet"><td class="num">${run.quietTo === run.quietFrom ? run.quietFrom : `${run.quietFrom} – ${run.quietTo}`}</td><td colspan="${String(STACKED.length + 1)}">no requests</td></tr>`
      : html`<tr><td class="num">${run.day}</td>${STACKED.map(({ kind }) => html`<td class="num">${number(run[kind])}</td>`)}<td class="num">${number(run.reports_accepted)}</td></tr>`,
  )}</tbody>
</table></div></details>`;
}

/** Consecutive days without a request or a report, as the table shows them: one row. */
interface QuietDays {
  quietFrom: string;
  readonly quietTo: string;
}

/** The days, newest first, each run of days without a request or report as one entry. */
function dayRuns(newestFirst: readonly DayOutcomes[]): (DayOutcomes | QuietDays)[] {
  const runs: (DayOutcomes | QuietDays)[] = [];
  for (const d of newestFirst) {
    const previous = runs.at(-1);
    if (!quiet(d)) runs.push(d);
    else if (previous !== undefined && "quietFrom" in previous) previous.quietFrom = d.day;
    else runs.push({ quietFrom: d.day, quietTo: d.day });
  }
  return runs;
}
