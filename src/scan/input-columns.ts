/** Which columns (or JSON keys) hold the addresses: named by the user, or found by their names. */
export interface ColumnChoice {
  /** A column the user named, matched without regard to case; undefined to find it by name. */
  readonly email?: string;
  readonly ip?: string;
}

export interface Columns {
  /** Index of the column, -1 when there is none. */
  readonly email: number;
  readonly ip: number;
}

/** Words that make a column an email column: "email", "E-mail", "user_email", "EmailAddress". */
const EMAIL_WORDS = new Set(["email", "mail", "emailaddress", "mailaddress"]);
/** …and an IP column: "ip", "IP address", "signup_ip", "ip_addr", "ipv6", "remote_addr". */
const IP_WORDS = new Set(["ip", "ipaddress", "ipaddr", "ipv4", "ipv6", "remoteaddr", "remoteaddress"]);

function words(name: string): string[] {
  const spaced = name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .replace(/^e[-_ ]mail/, "email");
  const parts = spaced.split(/[^a-z0-9]+/).filter(Boolean);
  return [...parts, parts.join("")];
}

export function looksLikeEmailColumn(name: string): boolean {
  return words(name).some((w) => EMAIL_WORDS.has(w));
}

export function looksLikeIpColumn(name: string): boolean {
  return words(name).some((w) => IP_WORDS.has(w));
}

/** The header's columns, or a message saying why the user's choice does not fit it. */
export function findColumns(header: readonly string[], choice: ColumnChoice): Columns | string {
  const named = (name: string) => header.findIndex((h) => h.trim().toLowerCase() === name.trim().toLowerCase());
  const email = choice.email !== undefined ? named(choice.email) : header.findIndex(looksLikeEmailColumn);
  const ip =
    choice.ip !== undefined ? named(choice.ip) : header.findIndex((h, i) => i !== email && looksLikeIpColumn(h));
  const list = header.map((h) => JSON.stringify(h)).join(", ");
  if (choice.email !== undefined && email === -1) return `--email-column ${choice.email}: no such column among ${list}`;
  if (choice.ip !== undefined && ip === -1) return `--ip-column ${choice.ip}: no such column among ${list}`;
  if (email === -1 && ip === -1)
    return `no email or IP column among ${list}; name one with --email-column or --ip-column`;
  return { email, ip };
}

/** How many other column names a description lists. */
const MAX_ALTERNATIVES = 5;

/**
 * One line for the summary: which column (or JSON key) the values of a kind were read from,
 * and the others whose names looked like one, which were not (`email` column "email", also
 * seen "backup_email": name it with --email-column to check that one).
 */
export function describeColumn(kind: "email" | "IP", used: readonly string[], others: readonly string[]): string {
  const quoted = (names: readonly string[]) =>
    names
      .slice(0, MAX_ALTERNATIVES)
      .map((n) => JSON.stringify(n))
      .join(", ") + (names.length > MAX_ALTERNATIVES ? ` and ${names.length - MAX_ALTERNATIVES} more` : "");
  const flag = kind === "email" ? "--email-column" : "--ip-column";
  let line = used.length === 0 ? `${kind} column: none` : `${kind} column: ${quoted(used)}`;
  if (others.length > 0) line += `; also seen, not checked: ${quoted(others)} (${flag} NAME picks another)`;
  return line;
}

/** The CSV header's columns used, and for each kind the others that look like its columns: what the user may have meant instead. */
export function describeCsvColumns(header: readonly string[], used: Columns): string[] {
  const others = (looksLike: (name: string) => boolean) =>
    header.filter((h, i) => i !== used.email && i !== used.ip && looksLike(h));
  const named = (index: number) => (index === -1 ? [] : [header[index]]);
  return [
    describeColumn("email", named(used.email), others(looksLikeEmailColumn)),
    describeColumn("IP", named(used.ip), others(looksLikeIpColumn)),
  ];
}
