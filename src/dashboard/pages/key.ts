import { type KeyRecord, keyStatus, rotationEndsAt } from "../../keys/key-record.ts";
import type { ServerLimits } from "../../keys/key-settings.ts";
import { keySettingFields } from "./key-setting-fields.ts";
import type { DayOutcomes } from "../../keys/usage-outcomes.ts";
import { type SafeHtml, html } from "../html.ts";
import { outcomeChart } from "../usage-chart.ts";
import { layout } from "./layout.ts";
import { type Notice, noticeLine } from "./notice.ts";
import { date } from "./keys.ts";
import { sectionNav } from "./section-nav.ts";

export interface KeyPageView {
  readonly key: KeyRecord;
  readonly days: readonly DayOutcomes[];
  readonly nowMs: number;
  /** What the key follows where it has no limit of its own. */
  readonly serverLimits: ServerLimits;
  readonly csrfToken: string;
  readonly notice?: Notice;
}

const keyPath = (key: KeyRecord) => `/dashboard/keys/${encodeURIComponent(key.id)}`;

/** `/dashboard/keys/ID`: a key's state, its 30 days by outcome, its settings to change, rotation and revocation. */
export function keyPage(view: KeyPageView): string {
  const { key, nowMs, csrfToken, notice } = view;
  const status = keyStatus(key, nowMs);
  const rotation = rotationEndsAt(key, nowMs);
  const body = html`${sectionNav("/dashboard", true)}
${noticeLine(notice)}
<h2>Key “${key.name}” <span class="status-${status}">${status}</span></h2>
<dl class="facts">
<dt>Key</dt><dd><code>${key.prefix}…</code> <span class="muted">${key.id}</span></dd>
<dt>Created</dt><dd>${date(key.createdAt)}</dd>
<dt>Last used</dt><dd>${date(key.lastUsedAt)}${key.lastUsedIp ? html` from <code>${key.lastUsedIp}</code>` : ""}</dd>
<dt>Expiry</dt><dd>${key.expiresAt ? html`${status === "expired" ? "expired" : "expires"} ${date(key.expiresAt)}` : "never expires"}</dd>
<dt>Permissions</dt><dd>${key.permissions.join(", ")}</dd>
<dt>Allowed from</dt><dd>${key.allowedNetworks.length ? key.allowedNetworks.join(", ") : "anywhere"}</dd>
<dt>Rotation</dt><dd>${rotation ? html`in progress: the previous secret works until ${date(rotation)}` : "none in progress"}</dd>
${key.revokedAt ? html`<dt>Revoked</dt><dd>${date(key.revokedAt)}</dd>` : ""}
</dl>
<h2>Last 30 days</h2>
${outcomeChart(view.days)}
${key.revokedAt ? "" : settingsForms(view)}`;
  return layout(`Key ${key.name}`, body, { csrfToken });
}

function settingsForms({ key, csrfToken, serverLimits, nowMs }: KeyPageView): SafeHtml {
  const csrf = html`<input type="hidden" name="csrf" value="${csrfToken}">`;
  return html`<h2>Settings</h2>
<form method="post" action="${keyPath(key)}" class="settings">
  ${csrf}
  ${keySettingFields(key, serverLimits).map(
    (f) => html`${f}
  `,
  )}<div><button type="submit">Save changes</button> <span class="muted">Running servers apply them within 3 s.</span></div>
</form>
<h2>Rotate the secret</h2>
<p>A new secret for the same key: its id, settings, usage and quota count stay. The current secret keeps working for the grace period, so the services using it can move over without downtime${rotationEndsAt(key, nowMs) ? "; rotating again ends the rotation in progress at once" : ""}.</p>
<form method="post" action="${keyPath(key)}/rotate" class="row">
  ${csrf}
  <div><label for="grace">Old secret works for</label><select id="grace" name="grace">
    <option value="1h">1 hour</option><option value="24h" selected>24 hours</option><option value="7d">7 days</option><option value="0">no grace: stops now</option>
  </select></div>
  <div><button class="secondary" type="submit">Rotate…</button></div>
</form>
<h2>Revoke</h2>
<p><a class="danger" href="${keyPath(key)}/revoke">Revoke this key…</a></p>`;
}

/** The answer to a rotation without grace, before it is done. */
export function rotateConfirmPage(key: KeyRecord, csrfToken: string): string {
  return layout(
    "Rotate key",
    html`<h2>Rotate “${key.name}” with no grace?</h2>
<p class="notice error">The current secret (<code>${key.prefix}…</code>) stops working at once: every service still using it gets 401 from its next request until it has the new one.</p>
<form method="post" action="${keyPath(key)}/rotate">
  <input type="hidden" name="csrf" value="${csrfToken}">
  <input type="hidden" name="grace" value="0">
  <input type="hidden" name="confirm" value="yes">
  <div class="row"><button class="danger" type="submit">Yes, rotate now</button> <a href="${keyPath(key)}">Cancel</a></div>
</form>`,
    { csrfToken },
  );
}

/** The new secret, shown once. */
export function keyRotatedPage(key: KeyRecord, secret: string, csrfToken: string): string {
  return layout(
    "Key rotated",
    html`<h2>New secret for “${key.name}”</h2>
<p class="notice">Copy this secret now. It is shown only this once. ${key.previousSecretEndsAt ? html`The previous secret works until ${date(key.previousSecretEndsAt)}.` : "The previous secret no longer works."}</p>
<div class="secret"><code id="new-key">${secret}</code><button type="button" data-copy="new-key" hidden>Copy</button></div>
<p><a href="${keyPath(key)}">Back to the key</a></p>`,
    { csrfToken },
  );
}
