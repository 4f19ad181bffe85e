/**
 * C0 and C1 control characters, DEL, the line and paragraph separators and the bidirectional
 * overrides and isolates: what can move a terminal's cursor, clear its screen, set its title,
 * break a line or reverse the text that follows.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escaped(char: string): string {
  const code = char.charCodeAt(0);
  return NAMED[char] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`);
}

/**
 * Text that came from outside (an operator's reason, a key's name, a client's report comment),
 * made safe to print on a terminal or to write into a CSV file: each control character as a
 * visible escape (`\n`, `\r`, `\t`, `\x1b`, `\u202e`); everything else as it is.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL, escaped);
}
