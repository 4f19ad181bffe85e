import type { IpAnswer } from "../../ip/answer/ip-answer-schema.ts";
import type { Explanation } from "../../ip/answer/explanation-schema.ts";
import { type SafeHtml, html } from "../html.ts";
import { layout } from "./layout.ts";
import { sectionNav } from "./section-nav.ts";
import { untilInput } from "./until-input.ts";
import { utcMinute } from "../../time/utc-minute.ts";
import { untilText } from "../../time/calendar-date.ts";

/** What an IP line answers, in words. */
export const IP_ANSWERS = { allow: "never risky (allow)", deny: "always risky (deny)" } as const;

/** An override line's expiry as the operator gave it: a day (the day included), or an instant. */
export function lineUntil(until: string | null): string {
  if (until === null) return "until removed";
  const given = untilText(until);
  return given === until ? utcMinute(until) : `${given} (the day included)`;
}

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
  /** Broader than /8 (/16 for IPv6), insisted on. */
  readonly force: boolean;
}

/** The IP page's first part: check an address, see why it is answered so, and allow it in one step. */
export function checkForm(checked: CheckedAddress | null, csrfToken: string): SafeHtml {
  return html`<h2>Check an address</h2>
<form method="get" action="/dashboard/ip">
  <div class="row">
    <div><label for="check">Address</label><input id="check" name="check" type="text" required maxlength="45" placeholder="203.0.113.7" value="${checked?.input ?? ""}"></div>
    <div><button type="submit">Check</button></div>
  </div>
</form>
${checked ? checkedView(checked, csrfToken) : ""}`;
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
    ? html`<p>Decided by the line <code>${line.target}</code>, ${IP_ANSWERS[line.action]}: “${line.reason}”, by ${line.author}, ${lineUntil(line.until)}${line.source === "allowlist-file" ? " (data/ip/allowlist.txt)" : ""}.</p>`
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
    <div><label for="allow-until">Until (optional, UTC, the day included)</label>${untilInput("allow-until")}</div>
  </div>
  <div class="row">${offers.map((o) => html`<button type="submit" name="target" value="${o.target}">${o.label} (${o.target})…</button> `)}</div>
</form>
</section>`;
}

/** The step before a line is added: what it covers, with its reason, to confirm. */
export function ipOverrideConfirmPage(line: PendingLine, csrfToken: string): string {
  return layout(
    "Add an IP override line",
    html`${sectionNav("/dashboard/ip")}<h2>${line.action === "allow" ? "Allow" : "Deny"} <code>${line.target}</code>?</h2>
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
  ${line.force ? html`<input type="hidden" name="force" value="yes">` : ""}
  <div class="row"><button class="${line.action === "deny" ? "danger" : ""}" type="submit">Yes, ${line.action} ${line.target}</button> <a href="/dashboard/ip${line.checked ? `?check=${encodeURIComponent(line.checked)}` : ""}">Cancel</a></div>
</form>`,
    { csrfToken },
  );
}
