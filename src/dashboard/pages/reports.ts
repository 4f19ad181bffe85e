import type { ReportedAddress } from "../../reports/local-report-index.ts";
import { html } from "../html.ts";
import { layout } from "./layout.ts";

/** One reported address's row: the keys that reported it, by name where the key is known. */
export interface ReportedRow {
  readonly address: ReportedAddress;
  readonly keyNames: ReadonlyMap<string, string>;
}

const when = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";

/** `/dashboard/reports`: the most-reported addresses of the window, who reported them, and a way to take reports back. */
export function reportsPage(rows: readonly ReportedRow[], windowDays: number, csrfToken: string, notice?: string): string {
  const body = html`<p><a href="/dashboard">API keys</a> · <a href="/dashboard/email">Email overrides</a> · <strong>Reported addresses</strong></p>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ""}
<h2>Most-reported addresses</h2>
<p>Reports your own services sent with POST /v1/reports over the last ${String(windowDays)} days, by the number of keys that reported each address: what the <code>local</code> source adds to the verdict. Deleting takes the reports back on every instance within 10 s.</p>
${
  rows.length === 0
    ? html`<p>No address was reported in the window.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>Address</th><th>Reporting keys</th><th>Reported by</th><th></th></tr></thead>
<tbody>
${rows.map(
  ({ address, keyNames }) => html`<tr data-ip="${address.ip}">
<td data-label="Address"><code>${address.ip}</code></td>
<td data-label="Reporting keys" class="num">${String(address.reporters)}</td>
<td data-label="Reported by"><ul>${address.byKey.map(
    (k) => html`<li>${keyNames.get(k.keyId) ?? k.keyId}: ${k.categories.join(", ")}, last ${when(k.lastMs)}
<form class="inline" method="post" action="/dashboard/reports/delete"><input type="hidden" name="csrf" value="${csrfToken}"><input type="hidden" name="ip" value="${address.ip}"><input type="hidden" name="key" value="${k.keyId}"><button class="secondary" type="submit">Delete this key's…</button></form></li>`,
  )}</ul></td>
<td><form class="inline" method="post" action="/dashboard/reports/delete"><input type="hidden" name="csrf" value="${csrfToken}"><input type="hidden" name="ip" value="${address.ip}"><button class="secondary" type="submit">Delete all…</button></form></td>
</tr>`,
)}
</tbody></table></div>`
}`;
  return layout("Reported addresses", body, { csrfToken });
}

/** The question before reports are deleted: of one address, by one key or by all. */
export function deleteReportsConfirmPage(ip: string, key: { id: string; name: string } | null, csrfToken: string): string {
  return layout(
    "Delete reports",
    html`<h2>Delete ${key ? html`the reports of “${key.name}”` : "every report"} about <code>${ip}</code>?</h2>
<p class="notice error">They stop counting in the verdict on every instance within 10 s. This cannot be undone.</p>
<form method="post" action="/dashboard/reports/delete">
  <input type="hidden" name="csrf" value="${csrfToken}">
  <input type="hidden" name="ip" value="${ip}">
  ${key ? html`<input type="hidden" name="key" value="${key.id}">` : ""}
  <input type="hidden" name="confirm" value="yes">
  <div class="row"><button class="danger" type="submit">Yes, delete</button> <a href="/dashboard/reports">Cancel</a></div>
</form>`,
    { csrfToken },
  );
}
