import { type SafeHtml, html } from "../html.ts";

const SECTIONS = [
  ["/dashboard", "API keys"],
  ["/dashboard/email", "Email overrides"],
  ["/dashboard/ip", "IP overrides"],
  ["/dashboard/reports", "Reported addresses"],
  ["/dashboard/policy", "Assessment rules"],
  ["/dashboard/audit", "Audit log"],
] as const;

/**
 * The links to the dashboard's sections, the current one in bold: a link too on a page within
 * the section (a key's page is within "API keys"), plain text on the section's own page.
 */
export function sectionNav(current: (typeof SECTIONS)[number][0], within = false): SafeHtml {
  return html`<nav class="sections" aria-label="Sections">${SECTIONS.map(([path, label], i) => {
    const separator = i > 0 ? " · " : "";
    if (path !== current) return html`${separator}<a href="${path}">${label}</a>`;
    return within
      ? html`${separator}<strong><a href="${path}">${label}</a></strong>`
      : html`${separator}<strong aria-current="page">${label}</strong>`;
  })}</nav>`;
}
