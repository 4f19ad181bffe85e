export type QueryValue = { readonly value: string } | "absent" | "repeated" | "malformed";

const ABSENT = "absent";

/**
 * One query parameter, percent-decoded per RFC 3986 only: `+` stays `+` (unlike
 * form decoding), and a comma never splits the value. The name with brackets
 * (`ip[]=…`, `ip[0]=…`, how frameworks send arrays and objects) makes it malformed.
 * Linear in the length of the URL.
 */
export function queryParam(url: string, name: string): QueryValue {
  const q = url.indexOf("?");
  if (q === -1) return ABSENT;
  const hash = url.indexOf("#", q);
  const end = hash === -1 ? url.length : hash;
  let found: string | null = null;
  let bracketed = false;
  let start = q + 1;
  // The next "=" at or after `start`, searched again only once passed: scanning from
  // every parameter to the end would make `?a&a&a…` quadratic.
  let eq = -1;
  while (start <= end) {
    let amp = url.indexOf("&", start);
    if (amp === -1 || amp > end) amp = end;
    if (eq < start) {
      eq = url.indexOf("=", start);
      if (eq === -1) eq = Number.POSITIVE_INFINITY;
    }
    const nameEnd = Math.min(eq, amp);
    const kind = nameKind(url, start, nameEnd, name);
    if (kind === "exact") {
      if (found !== null) return "repeated";
      found = nameEnd === amp ? "" : url.slice(nameEnd + 1, amp);
    } else if (kind === "bracketed") {
      bracketed = true;
    }
    start = amp + 1;
  }
  if (bracketed) return "malformed";
  if (found === null) return ABSENT;
  if (found.indexOf("%") === -1) return { value: found };
  try {
    return { value: decodeURIComponent(found) };
  } catch {
    return "malformed";
  }
}

/** Whether `url[start, end)` names the parameter, names it with brackets, or names another. */
function nameKind(url: string, start: number, end: number, name: string): "exact" | "bracketed" | "other" {
  if (url.startsWith(name, start)) {
    if (end - start === name.length) return "exact";
    if (url.charCodeAt(start + name.length) === BRACKET) return "bracketed";
  }
  const raw = url.slice(start, end);
  if (raw.indexOf("%") === -1) return "other";
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return "other";
  }
  return decoded === name ? "exact" : decoded.startsWith(`${name}[`) ? "bracketed" : "other";
}

const BRACKET = "[".charCodeAt(0);

/** `?explain`, `?explain=1`, `=true` or `=yes` ask for the reasons; `=0`, `=false`, `=no` or anything else do not. */
export function wantsExplanation(url: string): boolean {
  return flagParam(url, "explain");
}

/** A yes-or-no parameter: `?name`, `=1`, `=true` or `=yes` (any case) say yes; anything else, or none, no. */
export function flagParam(url: string, name: string): boolean {
  if (url.indexOf(name) === -1) return false;
  const param = queryParam(url, name);
  return typeof param === "object" && YES.has(param.value.toLowerCase());
}

const YES = new Set(["", "1", "true", "yes"]);
