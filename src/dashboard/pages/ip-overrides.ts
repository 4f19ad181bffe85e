import type { IpAnswer } from "../../ip/answer/ip-answer.ts";
import type { Explanation } from "../../ip/answer/explanation.ts";
import type { IpOverrideLine } from "../../ip/overrides/ip-override.ts";
import type { OverrideInForce } from "../../ip/overrides/override-table.ts";
import { html } from "../html.ts";
import { layout } from "./layout.ts";
import { sectionNav } from "./section-nav.ts";

function date(iso: string | null): string {
  return iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "until removed";
}

const ANSWER = { allow: "never risky (allow)", deny: "always risky (deny)" } as const;

/** An address looked up from the page: the API's answer with its reasons, and what the page may offer to allow. */
export interface CheckedAddress {
  readonly input: string;
  /** Null when the input is not an address. */
  readonly answer: IpAnswer | null;
  /** The targets "allow this address / this range / this network" would add. */
  readonly offers: readonly { readonly label: string; readonly target: string }[];
}

/** A line to add, shown once more before it is added. */
export interface PendingLine {
  readonly target: string;
  readonly action: "allow" | "deny";
  readonly reason: string;
  readonly until: string;
  /** The address checked, to show again afterwards. */
  readonly checked: string;
}

export const IP_NAV = sectionNav("/dashboard/ip");

/** `/dashboard/ip`: check an address and allow it in one step; the override lines, a form to add one, a button to remove each. */
export function ipOverridesPage(
  lines: readonly IpOverrideLine[],
  fileLines: readonly OverrideInForce[],
  nowMs: number,
  csrfToken: string,
  checked: CheckedAddress | null,
  notice?: { text: string; error?: boolean },
): string {
  const active = (l: IpOverrideLine) => l.until === null || Date.parse(l.until) > nowMs;
  const body = html`${IP_NAV}
${notice ? html`<p class="notice${notice.error ? " error" : ""}" role="status">${notice.text}</p>` : ""}
<h2>Check an address</h2>
<form method="get" action="/dashboard/ip">
  <div class="row">
    <div><label for="check">Address</label><input id="check" name="check" type="text" required maxlength="45" placeholder="203.0.113.7" value="${checked?.input ?? ""}"></div>
    <div><button type="submit">Check</button></div>
  </div>
</form>
${checked ? checkedView(checked, csrfToken) : ""}
<h2>Add an override line</h2>
<p>A line decides for an address, a CIDR range or a network (AS number), over every feed, report and list; where lines overlap the most specific decides (an address over a range, a longer prefix over a shorter one, a range over a network). Every running server applies it within 3 s; <code>?explain=1</code> shows it with its reason.</p>
<form method="post" action="/dashboard/ip">
  <input type="hidden" name="csrf" value="${csrfToken}">
  <div class="row">
    <div><label for="target">Address, range or network</label><input id="target" name="target" type="text" required maxlength="64" placeholder="203.0.113.0/24 or AS64500"></div>
    <div><label for="action">Answer</label><select id="action" name="action"><option value="allow">${ANSWER.allow}</option><option value="deny">${ANSWER.deny}</option></select></div>
  </div>
  <div class="row">
    <div><label for="reason">Reason</label><input id="reason" name="reason" type="text" required maxlength="500" placeholder="why, for whoever asks"></div>
    <div><label for="until">Until (optional, UTC, the day included)</label><input id="until" name="until" type="date"></div>
    <div><button type="submit">Add line…</button></div>
  </div>
</form>
<h2>Override lines</h2>
${
  lines.length === 0 && fileLines.length === 0
    ? html`<p>No override lines.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>Target</th><th>Answer</th><th>Reason</th><th>Author</th><th>Added</th><th>Until</th><th></th></tr></thead>
<tbody>
${lines.map(
  (l) => html`<tr class="${active(l) ? "active" : "revoked"}" data-target="${l.target}">
<td data-label="Target"><code>${l.target}</code></td>
<td data-label="Answer">${ANSWER[l.action]}</td>
<td data-label="Reason">${l.reason}</td>
<td data-label="Author">${l.author}</td>
<td data-label="Added" class="num">${date(l.created)}</td>
<td data-label="Until" class="num">${active(l) ? date(l.until) : html`expired ${date(l.until)}`}</td>
<td><form class="inline" method="post" action="/dashboard/ip/remove"><input type="hidden" name="csrf" value="${csrfToken}"><input type="hidden" name="target" value="${l.target}"><button class="secondary" type="submit">Remove</button></form></td>
</tr>`,
)}
${fileLines.map(
  (l) => html`<tr class="active" data-target="${l.target}">
<td data-label="Target"><code>${l.target}</code></td>
<td data-label="Answer">${ANSWER.allow}</td>
<td data-label="Reason">${l.reason}</td>
<td data-label="Author">${l.author}</td>
<td data-label="Added" class="num">${date(l.created || null)}</td>
<td data-label="Until" class="num">${date(l.until)}</td>
<td>edit the file, or move it into the database (docs/reputation.md)</td>
</tr>`,
)}
</tbody></table></div>`
}`;
  return layout("IP overrides", body, { csrfToken });
}

function checkedView({ input, answer, offers }: CheckedAddress, csrfToken: string) {
  if (answer === null) return html`<p class="notice error" role="status">“${input}” is not an IP address.</p>`;
  const r = answer.reputation;
  const reasons: Explanation | undefined = "reasons" in r ? r.reasons : undefined;
  if (!reasons)
    return html`<p class="notice" role="status"><code>${answer.ip}</code> is not a public address: it is always answered ok, and no line applies to it.</p>`;
  const line = reasons.override;
  return html`<section class="checked" aria-label="Explanation">
<p><code>${answer.ip}</code>${answer.asn ? html` · ${answer.asn}` : ""}${answer.country ? html` · ${answer.country}` : ""}</p>
<p>Verdict: <strong class="level-${r.reputation}">${r.reputation}</strong>, ${r.risky ? "risky" : "not risky"} (${r.sum} independent reports${r.kind.length ? html`; ${r.kind.join(", ")}` : ""}). Rule: <code>${reasons.rule.id}</code>.</p>
${
  line
    ? html`<p>Decided by the line <code>${line.target}</code>, ${ANSWER[line.action]}: “${line.reason}”, by ${line.author}, ${date(line.until)}${line.source === "allowlist-file" ? " (data/ip/allowlist.txt)" : ""}.</p>`
    : ""
}
${
  reasons.contributions.length
    ? html`<ul>${reasons.contributions.map((c) => html`<li><code>${c.source}</code>: ${c.category}${c.counted ? html`, ${c.counted} report(s)` : ""}${c.label ? html` (${c.label})` : ""}</li>`)}</ul>`
    : html`<p>No list names it.</p>`
}
${reasons.kinds.length ? html`<p>Kinds: ${reasons.kinds.map((k, i) => html`${i ? "; " : ""}${k.kind} from ${k.from}`)}</p>` : ""}
<form method="post" action="/dashboard/ip">
  <input type="hidden" name="csrf" value="${csrfToken}">
  <input type="hidden" name="action" value="allow">
  <input type="hidden" name="checked" value="${answer.ip}">
  <div class="row">
    <div><label for="allow-reason">Reason to allow</label><input id="allow-reason" name="reason" type="text" required maxlength="500" placeholder="customer's office, ticket 4711"></div>
    <div><label for="allow-until">Until (optional)</label><input id="allow-until" name="until" type="date"></div>
  </div>
  <div class="row">${offers.map((o) => html`<button type="submit" name="target" value="${o.target}">${o.label} (${o.target})…</button> `)}</div>
</form>
</section>`;
}

/** The step before a line is added: what it covers, with its reason, to confirm. */
export function ipOverrideConfirmPage(line: PendingLine, csrfToken: string): string {
  return layout(
    "Add an IP override line",
    html`${IP_NAV}<h2>${line.action === "allow" ? "Allow" : "Deny"} <code>${line.target}</code>?</h2>
<p>Every address it covers will be answered <strong>${line.action === "allow" ? "ok, not risky" : "bad, risky"}</strong>, whatever the feeds and reports say, ${line.until ? html`until the end of ${line.until} (UTC)` : "until the line is removed"}, unless a more specific line says otherwise.</p>
<p>Reason: “${line.reason}”</p>
<form method="post" action="/dashboard/ip">
  <input type="hidden" name="csrf" value="${csrfToken}">
  <input type="hidden" name="confirm" value="yes">
  <input type="hidden" name="target" value="${line.target}">
  <input type="hidden" name="action" value="${line.action}">
  <input type="hidden" name="reason" value="${line.reason}">
  <input type="hidden" name="until" value="${line.until}">
  <input type="hidden" name="checked" value="${line.checked}">
  <div class="row"><button class="${line.action === "deny" ? "danger" : ""}" type="submit">Yes, ${line.action} ${line.target}</button> <a href="/dashboard/ip${line.checked ? `?check=${encodeURIComponent(line.checked)}` : ""}">Cancel</a></div>
</form>`,
    { csrfToken },
  );
}
