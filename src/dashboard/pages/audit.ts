import type { AuditEntry } from "../../audit/audit-event.ts";
import { actionFamilies } from "../../audit/audit-log.ts";
import { AUDIT_ACTIONS } from "../../audit/audit-event.ts";
import { changeText } from "../../audit/change-text.ts";
import { html } from "../html.ts";
import { layout } from "./layout.ts";
import { sectionNav } from "./section-nav.ts";

/** The page's filters as the address bar has them, and where the next page starts. */
export interface AuditListing {
  readonly action: string | undefined;
  readonly target: string | undefined;
  /** The id the page starts below; undefined: the newest. */
  readonly before: number | undefined;
  /** The id the next (older) page starts below; null: this is the last. */
  readonly older: number | null;
}

function pageLink(listing: AuditListing, before: number | undefined): string {
  const params = new URLSearchParams();
  if (listing.action) params.set("action", listing.action);
  if (listing.target) params.set("target", listing.target);
  if (before !== undefined) params.set("before", String(before));
  const query = params.toString();
  return `/dashboard/audit${query ? `?${query}` : ""}`;
}

function pager(listing: AuditListing) {
  return html`<nav class="pager" aria-label="Pages of the audit log">
${listing.before !== undefined ? html`<a href="${pageLink(listing, undefined)}">« Newest</a>` : ""}
${listing.older !== null ? html`<a href="${pageLink(listing, listing.older)}" rel="next">Older ›</a>` : ""}</nav>`;
}

/** `/dashboard/audit`: every administrative event, newest first, filtered by action and target, a page at a time. */
export function auditPage(events: readonly AuditEntry[], listing: AuditListing, csrfToken: string): string {
  const choices = [
    ...actionFamilies().map((f) => ({ value: f, label: `${f}.*` })),
    ...AUDIT_ACTIONS.map((a) => ({ value: a, label: a })),
  ];
  const body = html`${sectionNav("/dashboard/audit")}
<h2>Audit log</h2>
<p>Who changed keys, override lines, reports, the password and the data: from the dashboard (its session and address), the CLI (the user and host), the admin API (the key and address) or the server itself. Nothing here can be edited or deleted; events older than the retention (RISKCHECK_AUDIT_RETENTION) are pruned, and the pruning is recorded. <code>riskcheck audit export</code> writes it as JSON Lines.</p>
<form method="get" action="/dashboard/audit" class="row">
<div><label for="audit-action">Action</label><select id="audit-action" name="action"><option value="">any</option>${choices.map(
    (c) => html`<option value="${c.value}"${c.value === listing.action ? html` selected` : ""}>${c.label}</option>`,
  )}</select></div>
<div><label for="audit-target">Target contains</label><input id="audit-target" name="target" type="search"
  value="${listing.target ?? ""}" maxlength="200" placeholder="key, domain or address"></div>
<div><button class="secondary" type="submit">Filter</button></div></form>
${
  events.length === 0
    ? html`<p>No event${listing.action || listing.target ? " matches" : " yet"}.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th class="when">When (UTC)</th><th>Action</th><th>Target</th><th>By</th><th>Change</th></tr></thead>
<tbody>
${events.map(
  (e) => html`<tr data-event-id="${String(e.id)}"${e.outcome === "failed" ? html` class="failed"` : ""}>
<td data-label="When" class="when">${e.at.slice(0, 19).replace("T", " ")}</td>
<td data-label="Action"><code>${e.action}</code>${e.outcome === "failed" ? html` <strong>failed</strong>` : ""}</td>
<td data-label="Target">${e.target}</td>
<td data-label="By"><span class="actor">${e.actor}</span> <span class="muted note">(${e.channel})</span></td>
<td data-label="Change">${[changeText(e.change), e.detail ?? ""].filter((t) => t !== "").join("; ")}</td>
</tr>`,
)}
</tbody></table></div>${pager(listing)}`
}`;
  return layout("Audit log", body, { csrfToken });
}
