import { type SafeHtml, html } from "../html.ts";
import { type CheckedAddress, IP_ANSWERS, checkForm, lineUntil } from "./ip-check.ts";
import { untilInput } from "./until-input.ts";
import { layout } from "./layout.ts";
import { type Notice, noticeLine } from "./notice.ts";
import { sectionNav } from "./section-nav.ts";
import { utcMinute } from "../../time/utc-minute.ts";

export type OverrideKind = "email" | "ip";

/** A line as the page lists it, of either kind. */
export interface ShownLine {
  /** The domain, or the address, range or network. */
  readonly target: string;
  readonly action: "allow" | "deny";
  readonly reason: string;
  readonly author: string;
  /** "" when not known (a line of data/ip/allowlist.txt without its date). */
  readonly created: string;
  readonly until: string | null;
  readonly active: boolean;
  /** A line of data/ip/allowlist.txt: edited there, not here. */
  readonly fromFile?: boolean;
}

/** The page of lines shown: its filters as the address bar has them, and where the next page starts. */
export interface OverridesListing {
  readonly action?: "allow" | "deny";
  /** Text the targets start with. */
  readonly prefix?: string;
  /** The target the page starts after; undefined: the first page. */
  readonly after?: string;
  /** The target the next page starts after; null: this is the last. */
  readonly next: string | null;
}

export interface OverridesView {
  readonly lines: readonly ShownLine[];
  readonly listing: OverridesListing;
  readonly csrfToken: string;
  readonly notice?: Notice;
  /** An address checked from the IP page. */
  readonly checked?: CheckedAddress | null;
}

/** What differs between the email and the IP override pages. */
interface OverridesPage {
  readonly path: "/dashboard/email" | "/dashboard/ip";
  readonly title: string;
  /** What a line decides, above the form that adds one. */
  readonly intro: SafeHtml;
  /** The form field and table column of a line's target. */
  readonly target: {
    readonly name: "domain" | "target";
    readonly label: string;
    readonly heading: string;
    readonly maxLength: number;
    readonly placeholder: string;
  };
  /** The answer as the form offers it and as the table says it. */
  readonly offered: Readonly<Record<ShownLine["action"], string>>;
  readonly listed: Readonly<Record<ShownLine["action"], string>>;
  /** Fields of this kind only, before the button. */
  readonly extraFields: SafeHtml | "";
  /** "Add line…" when a confirmation page comes first. */
  readonly addButton: string;
}

export const OVERRIDE_PAGES: Readonly<Record<OverrideKind, OverridesPage>> = {
  email: {
    path: "/dashboard/email",
    title: "Email overrides",
    intro: html`A line decides for the domain and its subdomains, over every list, the allowlist files and disputed names; every running server applies it within 10 s. <code>?explain=1</code> shows it with its reason.`,
    target: {
      name: "domain",
      label: "Domain",
      heading: "Domain",
      maxLength: 253,
      placeholder: "example-corp.com",
    },
    offered: { allow: "never disposable (allow)", deny: "always disposable (deny)" },
    listed: { allow: "never disposable", deny: "always disposable" },
    extraFields: html`<div><label><input name="force" type="checkbox" value="yes"> even on a public suffix (co.uk …)</label></div>
    `,
    addButton: "Add line",
  },
  ip: {
    path: "/dashboard/ip",
    title: "IP overrides",
    intro: html`A line decides for an address, a CIDR range or a network (AS number), over every feed, report and list. Where lines overlap, the address's own line decides, else the longest range covering it, else its network's (AS) line, else a range broader than /8 (/16 for IPv6), which only “even broader” adds. Special-purpose space (private, loopback, documentation) is refused: the check answers it before any line. Every running server applies a line within 3 s; <code>?explain=1</code> shows it with its reason.`,
    target: {
      name: "target",
      label: "Address, range or network",
      heading: "Target",
      maxLength: 64,
      placeholder: "81.2.69.0/24 or AS64500",
    },
    offered: IP_ANSWERS,
    listed: IP_ANSWERS,
    extraFields: html`<div><label><input name="force" type="checkbox" value="yes"> even broader than /8 (/16 for IPv6)</label></div>
    `,
    addButton: "Add line…",
  },
};

/**
 * `/dashboard/email` and `/dashboard/ip`: the override lines with reason, author and expiry, a
 * form to add one and a button to remove each; on the IP page, an address checked first.
 */
export function overridesPage(kind: OverrideKind, view: OverridesView): string {
  const p = OVERRIDE_PAGES[kind];
  const { lines, csrfToken, notice } = view;
  const body = html`${sectionNav(p.path)}
${noticeLine(notice)}
${kind === "ip" ? checkForm(view.checked ?? null, csrfToken) : ""}
<h2>Add an override line</h2>
<p>${p.intro}</p>
<form method="post" action="${p.path}">
  <input type="hidden" name="csrf" value="${csrfToken}">
  <div class="row">
    <div><label for="${p.target.name}">${p.target.label}</label><input id="${p.target.name}" name="${p.target.name}" type="text" required maxlength="${p.target.maxLength}" placeholder="${p.target.placeholder}"></div>
    <div><label for="action">Answer</label><select id="action" name="action"><option value="allow">${p.offered.allow}</option><option value="deny">${p.offered.deny}</option></select></div>
  </div>
  <div class="row">
    <div><label for="reason">Reason</label><input id="reason" name="reason" type="text" required maxlength="500" placeholder="why, for whoever asks"></div>
    <div><label for="until">Until (optional, UTC, the day included)</label>${untilInput("until")}</div>
    ${p.extraFields}<div><button type="submit">${p.addButton}</button></div>
  </div>
</form>
<h2>Override lines</h2>
${filters(p, view.listing)}
${
  lines.length === 0
    ? html`<p>No override line${view.listing.action || view.listing.prefix ? " matches" : view.listing.after ? " after these" : "s"}.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>${p.target.heading}</th><th>Answer</th><th>Reason</th><th>Author</th><th>Added</th><th>Until</th><th></th></tr></thead>
<tbody>
${lines.map((l) => lineRow(p, l, csrfToken))}
</tbody></table></div>`
}${pager(p, view.listing)}`;
  return layout(p.title, body, { csrfToken });
}

/** The filters: an answer, and the start of the targets; a new filter starts at the first page. */
function filters(p: OverridesPage, listing: OverridesListing): SafeHtml {
  const option = (value: string, label: string) =>
    html`<option value="${value}"${(listing.action ?? "") === value ? html` selected` : ""}>${label}</option>`;
  return html`<form method="get" action="${p.path}" class="row">
<div><label for="filter-action">Answer</label><select id="filter-action" name="action">
  ${option("", "any")}${option("allow", p.listed.allow)}${option("deny", p.listed.deny)}</select></div>
<div><label for="filter-target">${p.target.heading} starts with</label><input id="filter-target" name="target" type="search"
  value="${listing.prefix ?? ""}" maxlength="255"></div>
<div><button class="secondary" type="submit">Filter</button></div></form>`;
}

function pageLink(p: OverridesPage, listing: OverridesListing, after: string | undefined): string {
  const params = new URLSearchParams();
  if (listing.action) params.set("action", listing.action);
  if (listing.prefix) params.set("target", listing.prefix);
  if (after !== undefined) params.set("after", after);
  const query = params.toString();
  return query ? `${p.path}?${query}` : p.path;
}

function pager(p: OverridesPage, listing: OverridesListing): SafeHtml | "" {
  if (listing.after === undefined && listing.next === null) return "";
  return html`<nav class="pager" aria-label="Pages of the override lines">
${listing.after !== undefined ? html`<a href="${pageLink(p, listing, undefined)}">« First</a>` : ""}
${listing.next !== null ? html`<a href="${pageLink(p, listing, listing.next)}" rel="next">Next ›</a>` : ""}</nav>`;
}

function lineRow(p: OverridesPage, l: ShownLine, csrfToken: string): SafeHtml {
  const remove = l.fromFile
    ? "edit the file, or move it into the database (docs/reputation.md)"
    : html`<form class="inline" method="post" action="${p.path}/remove"><input type="hidden" name="csrf" value="${csrfToken}"><input type="hidden" name="${p.target.name}" value="${l.target}"><button class="secondary" type="submit">Remove</button></form>`;
  return html`<tr class="${l.active ? "active" : "revoked"}" data-${p.target.name}="${l.target}">
<td data-label="${p.target.heading}"><code>${l.target}</code></td>
<td data-label="Answer">${p.listed[l.action]}</td>
<td data-label="Reason">${l.reason}</td>
<td data-label="Author">${l.author}</td>
<td data-label="Added" class="num">${l.created ? utcMinute(l.created) : ""}</td>
<td data-label="Until" class="num">${l.active ? lineUntil(l.until) : html`expired ${lineUntil(l.until)}`}</td>
<td>${remove}</td>
</tr>`;
}
