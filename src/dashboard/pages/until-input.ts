import { type SafeHtml, html } from "../html.ts";

/**
 * A line's expiry field: a day as the CLI's --until and the pages write it, in UTC. Not a date
 * input: that shows the day in the browser's own format (mm/dd/yyyy …) beside a label saying UTC.
 */
export function untilInput(id: string): SafeHtml {
  return html`<input id="${id}" name="until" type="text" class="date" maxlength="32" placeholder="YYYY-MM-DD" pattern="\\d{4}-\\d{2}-\\d{2}(T\\S+)?" title="A day, YYYY-MM-DD (UTC, the day included), or an ISO 8601 instant">`;
}
