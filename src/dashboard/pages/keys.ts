import type { KeyRecord } from "../../keys/key-record.ts";
import { keyStatus, rotationEndsAt } from "../../keys/key-record.ts";
import type { ServerLimits } from "../../keys/key-settings.ts";
import { type SafeHtml, html } from "../html.ts";
import { keySettingFields } from "./key-setting-fields.ts";
import { KEYS_PER_PAGE, type KeyListing, type KeyRow } from "../key-rows.ts";
import { layout } from "./layout.ts";
import { type Notice, noticeLine } from "./notice.ts";
import { utcMinute } from "../../time/utc-minute.ts";
import { sectionNav } from "./section-nav.ts";

export function date(iso: string | null): string {
  return iso ? utcMinute(iso) : "never";
}

/** `/dashboard` with the search and page given. */
function listingHref(search: string, page: number): string {
  const params = new URLSearchParams();
  if (search) params.set("q", search);
  if (page > 1) params.set("page", String(page));
  return params.size ? `/dashboard?${params}` : "/dashboard";
}

function pager(listing: KeyListing): SafeHtml {
  const { matching, page, pages, search } = listing;
  const first = (page - 1) * KEYS_PER_PAGE + 1;
  const last = Math.min(matching, page * KEYS_PER_PAGE);
  return html`<nav class="pager" aria-label="Pages of keys"><span>${matching === 0 ? "" : `Keys ${first}–${last} of ${matching}`}${search ? ` matching “${search}”` : ""}</span>
${page > 1 ? html`<a href="${listingHref(search, page - 1)}" rel="prev">‹ Previous</a>` : ""}
${page < pages ? html`<a href="${listingHref(search, page + 1)}" rel="next">Next ›</a>` : ""}</nav>`;
}

export function keysPage(
  listing: KeyListing,
  serverLimits: ServerLimits,
  csrfToken: string,
  notice?: Notice,
  warnings: readonly string[] = [],
): string {
  const { rows, search } = listing;
  const body = html`${noticeLine(notice)}
${sectionNav("/dashboard")}
${warnings.length ? html`<section class="notice warning" aria-labelledby="data-warnings"><h2 id="data-warnings">About the data being served</h2><ul>${warnings.map((w) => html`<li>${w}</li>`)}</ul></section>` : ""}
<h2>Create New API Key</h2>
<form method="post" action="/dashboard/keys">
  <input type="hidden" name="csrf" value="${csrfToken}">
  <div class="row">
    ${keySettingFields(null, serverLimits).map(
      (f) => html`${f}
    `,
    )}<div><button type="submit">Create key</button></div>
  </div>
</form>
<h2>API Keys</h2>
<form method="get" action="/dashboard" role="search">
  <div class="row">
    <div><label for="q">Find a key</label><input id="q" name="q" type="search" value="${search}" placeholder="name, key prefix or id"></div>
    <div><button class="secondary" type="submit">Find</button>${search ? html` <a href="/dashboard">Show all</a>` : ""}</div>
  </div>
</form>
${pager(listing)}
${
  rows.length === 0
    ? html`<p>${search ? "No key matches." : "No keys yet."}</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>Name</th><th>Key</th><th>Permissions</th><th>Last used</th><th class="num">This month<br>email / IP</th><th class="num">IP quota left</th><th>Status</th><th>Actions</th></tr></thead>
<tbody>
${rows.map((r) => keyRow(r, listing.nowMs))}
</tbody></table></div>
${listing.pages > 1 ? pager(listing) : ""}`
}`;
  return layout("API keys", body, { csrfToken });
}

function keyRow(r: KeyRow, nowMs: number): SafeHtml {
  const { key } = r;
  const status = keyStatus(key, nowMs);
  const rotation = rotationEndsAt(key, nowMs);
  const href = `/dashboard/keys/${encodeURIComponent(key.id)}`;
  const notes = [
    key.expiresAt && status === "active" ? `expires ${date(key.expiresAt)}` : "",
    rotation && status === "active" ? `rotating until ${date(rotation)}` : "",
    key.allowedNetworks.length ? `from ${key.allowedNetworks.join(", ")} only` : "",
  ].filter((n) => n !== "");
  return html`<tr class="${status}" data-key-id="${key.id}">
<td data-label="Name" class="name"><a href="${href}">${key.name}</a>${notes.map((n) => html`<span class="muted note">${n}</span>`)}</td>
<td data-label="Key"><code>${key.prefix}…</code></td>
<td data-label="Permissions">${key.permissions.join(", ")}</td>
<td data-label="Last used">${key.lastUsedAt ? html`<span class="num">${date(key.lastUsedAt)}</span>${key.lastUsedIp ? html`<span class="muted note">from ${key.lastUsedIp}</span>` : ""}` : "never"}</td>
<td data-label="This month (email / IP)" class="num">${r.month.email.toLocaleString("en-US")} / ${r.month.ip.toLocaleString("en-US")}</td>
<td data-label="IP quota left" class="num">${r.quotaLeft === null ? "unlimited" : `${r.quotaLeft.toLocaleString("en-US")} of ${r.quota!.toLocaleString("en-US")}`}</td>
<td data-label="Status">${status === "revoked" ? html`revoked <span class="muted note">${date(key.revokedAt)}</span>` : html`<span class="status-${status}">${status}</span>`}</td>
<td data-label="Actions" class="actions"><a href="${href}">Manage</a>${status === "revoked" ? "" : html` <a class="danger" href="${href}/revoke">Revoke…</a>`}</td>
</tr>`;
}

export function keyCreatedPage(key: KeyRecord, secret: string, csrfToken: string): string {
  return layout(
    "Key created",
    html`<h2>Key “${key.name}” created</h2>
<p class="notice">Copy this key now. It is shown only this once and cannot be shown again; if it is lost, create a new key and revoke this one.</p>
<div class="secret"><code id="new-key">${secret}</code><button type="button" data-copy="new-key" hidden>Copy</button></div>
<p>Use it from server-side code only: <code>Authorization: Bearer ${key.prefix}…</code></p>
<p><a href="/dashboard">Back to the keys</a></p>`,
    { csrfToken },
  );
}

export function revokeConfirmPage(key: KeyRecord, csrfToken: string): string {
  return layout(
    "Revoke key",
    html`<h2>Revoke “${key.name}”?</h2>
<p>Key <code>${key.prefix}…</code>, created ${date(key.createdAt)}, last used ${date(key.lastUsedAt)}.</p>
<p class="notice error">Requests with this key will be refused with 401 from the very next one. This cannot be undone.</p>
<form method="post" action="/dashboard/keys/${encodeURIComponent(key.id)}/revoke">
  <input type="hidden" name="csrf" value="${csrfToken}">
  <input type="hidden" name="confirm" value="yes">
  <div class="row"><button class="danger" type="submit">Yes, revoke this key</button> <a href="/dashboard">Cancel</a></div>
</form>`,
    { csrfToken },
  );
}

export function messagePage(title: string, text: string): string {
  return layout(
    title,
    html`<h2>${title}</h2><p class="notice error">${text}</p><p><a href="/dashboard">Back to the dashboard</a></p>`,
  );
}
