/** What a spreadsheet takes as the start of a formula (OWASP's list: =, +, -, @, tab, carriage return). */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One RFC 4180 field that a spreadsheet opens as text: a value it would run as a formula
 * gets a leading apostrophe (`=2+5@gmail.com` → `'=2+5@gmail.com`), then quotes where the
 * value needs them. For every CSV file that holds text from outside.
 */
export function spreadsheetCsvField(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
