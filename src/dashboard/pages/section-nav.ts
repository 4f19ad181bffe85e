import { type SafeHtml, html } from "../html.ts";

const SECTIONS = [
  ["/dashboard", "API keys"],
  ["/dashboard/email", "Email overrides"],
  ["/dashboard/ip", "IP overrides"],
  ["/dashboard/reports", "Reported addresses"],
  ["/dashboard/policy", "Assessment rules"],
  ["/dashboard/audit", "Audit log"],
] as const;

/** The line of links to the dashboard's sections, the current one in bold. */
export function sectionNav(current: (typeof SECTIONS)[number][0]): SafeHtml {
  return html`<p>${SECTIONS.map(
    ([path, label], i) =>
      html`${i > 0 ? " · " : ""}${path === current ? html`<strong>${label}</strong>` : html`<a href="${path}">${label}</a>`}`,
  )}</p>`;
}
