import type { ReportedAddress } from "../../reports/local-report-index.ts";
import type { KeyRecord } from "../../keys/key-record.ts";
import { html } from "../html.ts";
import { layout } from "./layout.ts";
import { utcMinute } from "../../time/utc-minute.ts";
import { sectionNav } from "./section-nav.ts";
import type { ReportComment } from "../../reports/report-store.ts";
import { escapeControlCharacters } from "../../text/control-characters.ts";

/** One reported address's row: the keys that reported it, by name where the key is known, and their comments. */
export interface ReportedRow {
  readonly address: ReportedAddress;
  readonly keyNames: ReadonlyMap<string, string>;
  /** A key's newest comments about the address, newest first. */
  readonly comments: (keyId: string) => readonly ReportComment[];
}

/** A comment as a client sent it, escaped for the page and with its control characters made visible. */
function commentList(comments: readonly ReportComment[]) {
  if (comments.length === 0) return "";
  return html`<ul class="comments">${comments.map(
    (c) =>
      html`<li><q>${escapeControlCharacters(c.comment)}</q> <span class="muted">${c.category}, ${when(c.reportedAtMs)}</span></li>`,
  )}</ul>`;
}

/** The comments shown of each key's reports about an address: its newest. */
export const COMMENTS_PER_KEY = 3;

const when = (ms: number) => utcMinute(new Date(ms).toISOString());

/** Which page of the ranking this is. */
export interface ReportedListing {
  readonly page: number;
  readonly perPage: number;
  /** Addresses reported within the window by keys that count. */
  readonly total: number;
  readonly pages: number;
}

function pager({ page, perPage, total, pages }: ReportedListing) {
  const first = (page - 1) * perPage + 1;
  const last = Math.min(total, page * perPage, pages * perPage);
  return html`<nav class="pager" aria-label="Pages of reported addresses"><span>${total === 0 ? "" : `Addresses ${first}–${last} of ${total}${total > pages * perPage ? ` (the top ${pages * perPage} are listed)` : ""}`}</span>
${page > 1 ? html`<a href="/dashboard/reports?page=${String(page - 1)}" rel="prev">‹ Previous</a>` : ""}
${page < pages ? html`<a href="/dashboard/reports?page=${String(page + 1)}" rel="next">Next ›</a>` : ""}</nav>`;
}

/** `/dashboard/reports`: the most-reported addresses of the window, a page at a time, who reported them, and a way to take reports back. */
export function reportsPage(
  rows: readonly ReportedRow[],
  listing: ReportedListing,
  reporters: readonly KeyRecord[],
  windowDays: number,
  csrfToken: string,
  notice?: string,
): string {
  const body = html`${sectionNav("/dashboard/reports")}
${notice ? html`<p class="notice" role="status">${notice}</p>` : ""}
<h2>Most-reported addresses</h2>
<p>Reports your own services sent with POST /v1/reports over the last ${String(windowDays)} days, by the number of keys that reported each address (a key counts once per address, whatever the categories; a revoked key's reports count no more): what the <code>local</code> source adds to the verdict. Under each key, the comments of its ${String(COMMENTS_PER_KEY)} newest reports that have one; <code>riskcheck reports list --ip ADDRESS</code> lists them all. Deleting takes the reports back on every instance within 10 s.</p>
${
  rows.length === 0
    ? html`<p>No address was reported in the window.</p>`
    : html`${pager(listing)}<div class="table-wrap"><table>
<thead><tr><th>Address</th><th>Reporting keys</th><th>Reported by</th><th></th></tr></thead>
<tbody>
${rows.map(
  ({ address, keyNames, comments }) => html`<tr data-ip="${address.ip}">
<td data-label="Address"><code>${address.ip}</code></td>
<td data-label="Reporting keys" class="num">${String(address.reporters)}</td>
<td data-label="Reported by"><ul>${address.byKey.map(
    (k) => html`<li>${keyNames.get(k.keyId) ?? k.keyId}: ${k.categories.join(", ")}, last ${when(k.lastMs)}
<form class="inline" method="post" action="/dashboard/reports/delete"><input type="hidden" name="csrf" value="${csrfToken}"><input type="hidden" name="ip" value="${address.ip}"><input type="hidden" name="key" value="${k.keyId}"><button class="secondary" type="submit">Delete this key's…</button></form>${commentList(comments(k.keyId))}</li>`,
  )}</ul></td>
<td><form class="inline" method="post" action="/dashboard/reports/delete"><input type="hidden" name="csrf" value="${csrfToken}"><input type="hidden" name="ip" value="${address.ip}"><button class="secondary" type="submit">Delete all…</button></form></td>
</tr>`,
)}
</tbody></table></div>${pager(listing)}`
}
${
  reporters.length === 0
    ? ""
    : html`<h2>All of one key's reports</h2>
<p>A key that reported what it should not have (a misconfigured service, a leaked key): take back every report it made, on every address. You are asked to confirm.</p>
<form method="post" action="/dashboard/reports/delete"><input type="hidden" name="csrf" value="${csrfToken}">
<label>Key <select name="key">${reporters.map((k) => html`<option value="${k.id}">${k.name} (${k.prefix}…)</option>`)}</select></label>
<button class="secondary" type="submit">Delete all of its reports…</button></form>`
}`;
  return layout("Reported addresses", body, { csrfToken });
}

/** The question before reports are deleted: of one address (by one key or by all), or all of one key's. */
export function deleteReportsConfirmPage(
  ip: string | null,
  key: { id: string; name: string } | null,
  csrfToken: string,
): string {
  const what =
    ip === null
      ? html`all reports of “${key!.name}”, on every address`
      : key
        ? html`the reports of “${key.name}” about <code>${ip}</code>`
        : html`every report about <code>${ip}</code>`;
  return layout(
    "Delete reports",
    html`<h2>Delete ${what}?</h2>
<p class="notice error">They stop counting in the verdict on every instance within 10 s. This cannot be undone${ip === null ? "; the key itself stays as it is" : ""}.</p>
<form method="post" action="/dashboard/reports/delete">
  <input type="hidden" name="csrf" value="${csrfToken}">
  ${ip === null ? "" : html`<input type="hidden" name="ip" value="${ip}">`}
  ${key ? html`<input type="hidden" name="key" value="${key.id}">` : ""}
  <input type="hidden" name="confirm" value="yes">
  <div class="row"><button class="danger" type="submit">Yes, delete</button> <a href="/dashboard/reports">Cancel</a></div>
</form>`,
    { csrfToken },
  );
}
