import type { DecisionTally } from "../../assess/decision-tally.ts";
import { DECISIONS, type Decision, type PolicyRule } from "../../assess/policy-rule.ts";
import { utcMinute } from "../../time/utc-minute.ts";
import { type SafeHtml, html } from "../html.ts";
import { layout } from "./layout.ts";
import { type Notice, noticeLine } from "./notice.ts";
import { sectionNav } from "./section-nav.ts";

/** What the assessments of the last days came to, every instance's, from the stored counts. */
export interface PolicyWeek {
  /** The first day counted (YYYY-MM-DD, UTC). */
  readonly since: string;
  /** By event label (`none` without one, `other` for labels no rule names), busiest first. */
  readonly byEvent: ReadonlyMap<string, DecisionTally>;
}

export interface PolicyView {
  readonly version: string;
  readonly revision: number;
  readonly rules: readonly (PolicyRule & { readonly active: boolean })[];
  readonly week: PolicyWeek;
  readonly csrfToken: string;
  readonly notice?: Notice;
  /** What a refused form sent, shown in it again. */
  readonly drafts?: { readonly rule: string; readonly set: string };
}

const DONE: Readonly<Record<Decision, string>> = { allow: "allowed", challenge: "challenged", block: "blocked" };
const n = (x: number) => x.toLocaleString("en-US");

/**
 * `/dashboard/policy`: the assessment rules in order, what each decided or would have decided in
 * the last days, per event, and the forms that add, switch, move and remove them.
 */
export function policyPage(view: PolicyView): string {
  const { rules, week, csrfToken } = view;
  const body = html`${sectionNav("/dashboard/policy")}
${noticeLine(view.notice)}
<h2>Assessment rules</h2>
<p>Policy <code>${view.version}</code>, revision ${String(view.revision)}. The first enforcing rule whose conditions hold decides <code>/v1/assess</code>; when none does, the score does (challenge from 50, block from 85). A rule in shadow is counted and shown in <code>?explain=1</code>, never deciding. Every running server applies a change within 2 s. docs/assess.md says what a rule may name.</p>
${rules.length === 0 ? html`<p>No rules: the default policy decides every assessment.</p>` : rulesTable(view)}
<h2>Assessments since ${week.since}</h2>
${weekTable(week)}
<h2>Add a rule</h2>
<p>One rule as JSON, in shadow unless it says <code>"mode": "enforce"</code>; a rule with the id of one in the set replaces it in its place.</p>
<form method="post" action="/dashboard/policy/rules">
  <input type="hidden" name="csrf" value="${csrfToken}">
  <label for="rule">Rule</label>
  <textarea id="rule" name="rule" rows="9" required spellcheck="false" placeholder='{"id": "disposable-on-vpn", "conditions": {"all": [{"field": "email.disposable", "op": "is", "value": true}, {"field": "ip.kind", "op": "has_any", "value": ["vpn", "hosting"]}]}, "decision": "block", "reason": "why, for whoever asks"}'>${view.drafts?.rule ?? ""}</textarea>
  <div class="row">
    <div><label for="position">Place (optional, from 1)</label><input id="position" name="position" type="text" inputmode="numeric" maxlength="4"></div>
    <div><button type="submit">Add rule</button></div>
  </div>
</form>
<h2>Replace the whole set</h2>
<p>A rule set, <code>{"rules": [...]}</code>, as <code>riskcheck policy export</code> writes it: checked whole, refused whole. Tick shadow to try a candidate policy: every rule of it counted, none deciding. Sets larger than this form takes: <code>riskcheck policy import</code> or <code>PUT /v1/policy</code>.</p>
<form method="post" action="/dashboard/policy">
  <input type="hidden" name="csrf" value="${csrfToken}">
  <label for="set">Rule set</label>
  <textarea id="set" name="set" rows="6" required spellcheck="false" placeholder='{"rules": []}'>${view.drafts?.set ?? ""}</textarea>
  <div class="row">
    <div><label><input name="shadow" type="checkbox" value="yes"> every rule in shadow</label></div>
    <div><button class="secondary" type="submit">Replace the set</button></div>
  </div>
</form>`;
  return layout("Assessment rules", body, { csrfToken });
}

function rulesTable({ rules, week, csrfToken }: PolicyView): SafeHtml {
  const hidden = (rule: PolicyRule) =>
    html`<input type="hidden" name="csrf" value="${csrfToken}"><input type="hidden" name="id" value="${rule.id}">`;
  const button = (rule: PolicyRule, action: string, fields: SafeHtml | "", label: string, title: string) =>
    html`<form class="inline" method="post" action="/dashboard/policy/${action}">${hidden(rule)}${fields}<button class="secondary" type="submit" title="${title}">${label}</button></form>`;
  return html`<div class="table-wrap"><table>
<thead><tr><th>#</th><th>Rule</th><th>Mode</th><th>Decision</th><th>Conditions</th><th>Reason</th><th>Author</th><th>Expires</th><th>Since ${week.since}</th><th></th></tr></thead>
<tbody>
${rules.map((rule, i) => {
  const other = rule.mode === "shadow" ? "enforce" : "shadow";
  return html`<tr class="${rule.active ? "active" : "expired"}" data-rule="${rule.id}">
<td data-label="#" class="num">${String(i + 1)}</td>
<td data-label="Rule"><code>${rule.id}</code></td>
<td data-label="Mode">${rule.mode}</td>
<td data-label="Decision">${rule.decision}</td>
<td data-label="Conditions"><code class="conditions">${JSON.stringify(rule.conditions)}</code></td>
<td data-label="Reason">${rule.reason}</td>
<td data-label="Author">${rule.author}</td>
<td data-label="Expires" class="num">${rule.expires === null ? "never" : html`${rule.active ? "" : "expired "}${utcMinute(rule.expires)}`}</td>
<td data-label="Since ${week.since}">${ruleWeek(rule, week)}</td>
<td class="actions">${button(rule, "mode", html`<input type="hidden" name="mode" value="${other}">`, other === "enforce" ? "Enforce" : "Shadow", other === "enforce" ? "let it decide" : "count it, deciding nothing")}
${i > 0 ? button(rule, "move", html`<input type="hidden" name="position" value="${String(i)}">`, "Up", "one place up") : ""}
${i < rules.length - 1 ? button(rule, "move", html`<input type="hidden" name="position" value="${String(i + 2)}">`, "Down", "one place down") : ""}
${button(rule, "remove", "", "Remove", "remove the rule")}</td>
</tr>`;
})}
</tbody></table></div>`;
}

/** What one rule did, per event: "signup: would have blocked 312 of 4,100 (changing 280)". */
function ruleWeek(rule: PolicyRule, week: PolicyWeek): SafeHtml {
  const lines: SafeHtml[] = [];
  for (const [event, tally] of week.byEvent) {
    const t = tally.rules.get(rule.id);
    if (t === undefined) continue;
    const of = `of ${n(tally.assessed)}`;
    if (t.decided > 0) lines.push(html`<li>${event}: ${DONE[rule.decision]} ${n(t.decided)} ${of}</li>`);
    if (t.wouldDecide > 0)
      lines.push(
        html`<li>${event}: would have ${DONE[rule.decision]} ${n(t.wouldDecide)} ${of} (changing ${n(t.wouldChange)})</li>`,
      );
  }
  return lines.length === 0 ? html`<span class="muted">decided nothing</span>` : html`<ul>${lines}</ul>`;
}

function weekTable(week: PolicyWeek): SafeHtml {
  if (week.byEvent.size === 0) return html`<p>No assessment was counted.</p>`;
  return html`<div class="table-wrap"><table class="numbers">
<thead><tr><th>Event</th><th>Assessments</th>${DECISIONS.map((d) => html`<th>${d}</th>`)}</tr></thead>
<tbody>
${[...week.byEvent].map(
  ([event, tally]) =>
    html`<tr data-event="${event}"><td>${event}</td><td class="num">${n(tally.assessed)}</td>${DECISIONS.map((d) => html`<td class="num">${n(tally.decisions[d])}</td>`)}</tr>`,
)}
</tbody></table></div>`;
}
