/** A PostgreSQL connection URL as riskcheck accepts it, and the same URL fit for logs. */

const SCHEMES = ["postgres:", "postgresql:"];

/** An error sentence, or null when `text` is a URL Bun.sql can connect with. */
export function problemWithDatabaseUrl(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "is not a URL such as postgres://riskcheck:PASSWORD@db.internal:5432/riskcheck";
  }
  if (!SCHEMES.includes(url.protocol)) return `must start with postgres://, got ${redactedDatabaseUrl(text)}`;
  if (url.hostname === "" && !url.searchParams.has("host")) return `names no host: ${redactedDatabaseUrl(text)}`;
  return null;
}

/** The URL with its password replaced by ***, for messages and logs. */
export function redactedDatabaseUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "(not a URL)";
  }
}

/** `message` with the URL's password (raw or percent-decoded) replaced by ***, wherever it appears. */
export function withoutPassword(message: string, text: string): string {
  let password = "";
  try {
    password = new URL(text).password;
  } catch {
    return message.replaceAll(text, redactedDatabaseUrl(text));
  }
  if (password === "") return message;
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {}
  return message.replaceAll(password, "***").replaceAll(decoded, "***");
}
