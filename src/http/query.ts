export type QueryValue = { readonly value: string } | "absent" | "repeated" | "malformed";

const ABSENT = "absent";

/**
 * One query parameter, percent-decoded per RFC 3986 only: `+` stays `+` (unlike
 * form decoding), and a comma never splits the value.
 */
export function queryParam(url: string, name: string): QueryValue {
  const q = url.indexOf("?");
  if (q === -1) return ABSENT;
  const hash = url.indexOf("#", q);
  const end = hash === -1 ? url.length : hash;
  let found: string | null = null;
  let start = q + 1;
  while (start <= end) {
    let amp = url.indexOf("&", start);
    if (amp === -1 || amp > end) amp = end;
    const eq = url.indexOf("=", start);
    const nameEnd = eq === -1 || eq > amp ? amp : eq;
    if (matchesName(url, start, nameEnd, name)) {
      if (found !== null) return "repeated";
      found = nameEnd === amp ? "" : url.slice(nameEnd + 1, amp);
    }
    start = amp + 1;
  }
  if (found === null) return ABSENT;
  if (found.indexOf("%") === -1) return { value: found };
  try {
    return { value: decodeURIComponent(found) };
  } catch {
    return "malformed";
  }
}

function matchesName(url: string, start: number, end: number, name: string): boolean {
  if (end - start === name.length && url.startsWith(name, start)) return true;
  const raw = url.slice(start, end);
  if (raw.indexOf("%") === -1) return false;
  try {
    return decodeURIComponent(raw) === name;
  } catch {
    return false;
  }
}
