import { type SafeHtml, html } from "../html.ts";

/** A line above a page's content: what was just done, or why it was not. */
export interface Notice {
  readonly text: string;
  readonly error?: boolean;
}

export function noticeLine(notice: Notice | undefined): SafeHtml | "" {
  return notice ? html`<p class="notice${notice.error ? " error" : ""}" role="status">${notice.text}</p>` : "";
}
