/** Served as files so the Content-Security-Policy can forbid every inline script and style. */
export const DASHBOARD_CSS = `
:root { color-scheme: light dark; --fg: #1c1f23; --muted: #5f6670; --bg: #fff; --line: #d9dde3; --accent: #0b5fff; --danger: #b42318; --ok: #067647; --panel: #f5f7fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --muted: #9aa3ad; --bg: #111418; --line: #2b3138; --accent: #6d9eff; --danger: #ff8a7a; --ok: #5fd49a; --panel: #1a1f25; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between; padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
header h1 { font-size: 1.1rem; margin: 0; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h2 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
form.inline { display: inline; }
label { display: block; font-weight: 600; margin-bottom: .25rem; }
input[type=text], input[type=password], input[type=search], select { font: inherit; line-height: 1.5; height: 2.4rem; padding: .4rem .6rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
input[type=text], input[type=password], input[type=search] { width: 100%; max-width: 24rem; }
/* A field of a row is as wide as its placeholder needs; a date field as wide as a date. */
.row input[type=text], .row input[type=search] { width: 18rem; max-width: 100%; }
.row input.date { width: 10rem; }
button { font: inherit; padding: .45rem .9rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
button.danger { background: var(--danger); border-color: var(--danger); }
.row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; }
.row + .row { margin-top: .5rem; }
.notice { padding: .75rem 1rem; border-radius: 8px; background: var(--panel); border: 1px solid var(--line); margin: 1rem 0; }
.notice.error { border-color: var(--danger); }
.notice.warning h2 { margin: 0 0 .5rem; font-size: 1rem; }
.notice.warning ul { margin: 0; padding-left: 1.25rem; }
.secret { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.secret code { font-size: 1rem; padding: .5rem; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; word-break: break-all; }
.table-wrap { overflow-x: auto; }
nav.pager { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: baseline; margin: .75rem 0; color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .85rem; color: var(--muted); font-weight: 600; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.revoked { color: var(--muted); }
tr.revoked td:first-child { text-decoration: line-through; }
.status-active { color: var(--ok); font-weight: 600; }
.muted { color: var(--muted); font-size: .85rem; }
td.num, td code { white-space: nowrap; }
td.name { overflow-wrap: anywhere; min-width: 8rem; }
.note { display: block; }
td.actions { white-space: nowrap; }
td.actions a + a { margin-left: .75rem; }
a.danger { color: var(--danger); }
tr.expired { color: var(--muted); }
.status-expired, .status-revoked { color: var(--danger); font-weight: 600; }
h2 .status-active, h2 .status-expired, h2 .status-revoked { font-size: .9rem; margin-left: .5rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
nav.sections { margin: 1rem 0; }
form.settings { display: grid; gap: .75rem; max-width: 36rem; }
form.settings p.muted { margin: .25rem 0 0; }
textarea { font: 13px/1.4 ui-monospace, monospace; width: 100%; padding: .45rem .6rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
code.conditions { white-space: normal; overflow-wrap: anywhere; font-size: .8rem; }
fieldset { border: 1px solid var(--line); border-radius: 6px; }
fieldset label { font-weight: 400; }
fieldset label .help { display: block; margin: 0 0 .35rem 1.6rem; }
figure.outcomes { margin: 0; }
svg.outcome-chart { width: 100%; max-width: 56rem; height: auto; display: block; }
svg.outcome-chart .grid { stroke: var(--line); stroke-width: 1; }
svg.outcome-chart .axis { stroke: var(--muted); stroke-width: 1.5; }
svg.outcome-chart .tick { fill: var(--muted); font-size: 12px; }
/* The chart's units shrink with it: at phone width 24 of them are about 12 px. */
@media (max-width: 40rem) { svg.outcome-chart .tick { font-size: 24px; } svg.outcome-chart .axis-title { display: none; } }
svg.outcome-chart rect.hit { fill: transparent; }
.answered { fill: var(--accent); background: var(--accent); }
.refused { fill: #b54708; background: #b54708; }
.rate_limited { fill: #7a5af8; background: #7a5af8; }
.over_quota { fill: var(--danger); background: var(--danger); }
.forbidden { fill: #667085; background: #667085; }
ul.legend { display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; list-style: none; padding: 0; margin: .5rem 0; }
.swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; margin-right: .35rem; vertical-align: -1px; }
ul.comments { margin: .15rem 0 .4rem; padding-left: 1.1rem; }
ul.comments q { overflow-wrap: anywhere; }
table.numbers { width: auto; }
table.numbers tr.quiet td { color: var(--muted); }
/* The audit log's time and actor ("session 6285b065 from 127.0.0.1") on a line each: the change takes the rest. */
.when, .actor { white-space: nowrap; }
@media (max-width: 40rem) {
  table:not(.numbers) thead { display: none; }
  table:not(.numbers), table:not(.numbers) > tbody, table:not(.numbers) > tbody > tr, table:not(.numbers) > tbody > tr > td { display: block; width: 100%; }
  table:not(.numbers) > tbody > tr { border: 1px solid var(--line); border-radius: 8px; margin-bottom: .75rem; padding: .25rem .5rem; }
  table:not(.numbers) > tbody > tr > td { border: 0; padding: .25rem 0; }
  td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); font-size: .85rem; }
  .actor { white-space: normal; }
  dl.facts { grid-template-columns: 1fr; }
}
`;

export const DASHBOARD_JS = `
for (const button of document.querySelectorAll("button[data-copy]")) {
  button.hidden = false;
  button.addEventListener("click", async () => {
    const target = document.getElementById(button.dataset.copy);
    try {
      await navigator.clipboard.writeText(target.textContent);
      button.textContent = "Copied";
    } catch {
      const range = document.createRange();
      range.selectNodeContents(target);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      button.textContent = "Press Ctrl+C to copy";
    }
  });
}
`;

export const DASHBOARD_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b5fff"/><path d="M4 8.5l2.5 2.5L12 5" stroke="#fff" stroke-width="2" fill="none"/></svg>`;
