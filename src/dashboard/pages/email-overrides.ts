import type { OverrideLine } from "../../email/overrides.ts";
import { untilText } from "../../time/calendar-date.ts";
import { html } from "../html.ts";
import { layout } from "./layout.ts";
import { sectionNav } from "./section-nav.ts";

function date(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

/** As the operator gave it: a day (the day included), or an instant. */
function until(iso: string | null): string {
  if (iso === null) return "until removed";
  const given = untilText(iso);
  return given === iso ? date(iso) : `${given} (the day included)`;
}

/** `/dashboard/email`: the override lines with reason, author and expiry; a form to add one, a button to remove each. */
export function emailOverridesPage(
  lines: readonly OverrideLine[],
  active: ReadonlySet<string>,
  csrfToken: string,
  notice?: { text: string; error?: boolean },
): string {
  const body = html`${sectionNav("/dashboard/email")}
${notice ? html`<p class="notice${notice.error ? " error" : ""}" role="status">${notice.text}</p>` : ""}
<h2>Add an override line</h2>
<p>A line decides for the domain and its subdomains, over every list, the allowlist files and disputed names; every running server applies it within 10 s. <code>?explain=1</code> shows it with its reason.</p>
<form method="post" action="/dashboard/email">
  <input type="hidden" name="csrf" value="${csrfToken}">
  <div class="row">
    <div><label for="domain">Domain</label><input id="domain" name="domain" type="text" required maxlength="253" placeholder="example-corp.com"></div>
    <div><label for="action">Answer</label><select id="action" name="action"><option value="allow">never disposable (allow)</option><option value="deny">always disposable (deny)</option></select></div>
  </div>
  <div class="row">
    <div><label for="reason">Reason</label><input id="reason" name="reason" type="text" required maxlength="500" placeholder="why, for whoever asks"></div>
    <div><label for="until">Until (optional, UTC, the day included)</label><input id="until" name="until" type="date"></div>
    <div><label><input name="force" type="checkbox" value="yes"> even on a public suffix (co.uk …)</label></div>
    <div><button type="submit">Add line</button></div>
  </div>
</form>
<h2>Override lines</h2>
${
  lines.length === 0
    ? html`<p>No override lines.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>Domain</th><th>Answer</th><th>Reason</th><th>Author</th><th>Added</th><th>Until</th><th></th></tr></thead>
<tbody>
${lines.map(
  (l) => html`<tr class="${active.has(l.domain) ? "active" : "revoked"}" data-domain="${l.domain}">
<td data-label="Domain"><code>${l.domain}</code></td>
<td data-label="Answer">${l.action === "allow" ? "never disposable" : "always disposable"}</td>
<td data-label="Reason">${l.reason}</td>
<td data-label="Author">${l.author}</td>
<td data-label="Added" class="num">${date(l.created)}</td>
<td data-label="Until" class="num">${active.has(l.domain) ? until(l.until) : html`expired ${until(l.until)}`}</td>
<td><form class="inline" method="post" action="/dashboard/email/remove"><input type="hidden" name="csrf" value="${csrfToken}"><input type="hidden" name="domain" value="${l.domain}"><button class="secondary" type="submit">Remove</button></form></td>
</tr>`,
)}
</tbody></table></div>`
}`;
  return layout("Email overrides", body, { csrfToken });
}
