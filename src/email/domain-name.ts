import { domainToASCII } from "node:url";

const MAX_DOMAIN_OCTETS = 253;
const MAX_LABEL_OCTETS = 63;

/**
 * UTS-46 maps the domain to lower-case ASCII (punycode), then the result must be a
 * plain host name: at least two labels of [a-z0-9-] without edge hyphens, the last
 * alphabetic or an IDN (`xn--`). Returns null for anything else, IP literals included.
 */
export function normaliseDomain(input: string): string | null {
  if (input.length === 0 || input.length > 1024) return null;
  let plainAscii = true;
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    // ASCII must already be host-name characters: domainToASCII would percent-decode
    // or accept characters ("%", "_", "[") that a mail domain cannot have.
    if (c >= 0x80) plainAscii = false;
    else if (!isAsciiHostChar(c)) return null;
  }
  // UTS-46 maps plain ASCII host names to lower case and nothing else, unless a label is punycode.
  const ascii =
    plainAscii && input.indexOf("xn--") === -1 && input.indexOf("XN--") === -1
      ? input.toLowerCase()
      : domainToASCII(input);
  if (ascii === "" || ascii.length > MAX_DOMAIN_OCTETS) return null;
  return isHostName(ascii) ? ascii : null;
}

function isAsciiHostChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e;
}

function isHostName(d: string): boolean {
  let labelStart = 0;
  let labels = 0;
  for (let i = 0; i <= d.length; i++) {
    if (i < d.length && d.charCodeAt(i) !== 0x2e) {
      const c = d.charCodeAt(i);
      if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d)) return false;
      continue;
    }
    const length = i - labelStart;
    if (length === 0 || length > MAX_LABEL_OCTETS) return false;
    if (d.charCodeAt(labelStart) === 0x2d || d.charCodeAt(i - 1) === 0x2d) return false;
    labels++;
    if (i === d.length && !isTopLevelLabel(d, labelStart, i)) return false;
    labelStart = i + 1;
  }
  return labels >= 2;
}

function isTopLevelLabel(d: string, start: number, end: number): boolean {
  if (d.startsWith("xn--", start)) return end - start > 4;
  if (end - start < 2) return false;
  for (let i = start; i < end; i++) {
    const c = d.charCodeAt(i);
    if (c < 0x61 || c > 0x7a) return false;
  }
  return true;
}

/** What `lookup` finds for `domain` or its nearest parent (`a.b.c` → `b.c` → `c`), or undefined. */
export function nearest<T>(domain: string, lookup: (name: string) => T | undefined): T | undefined {
  for (let name = domain; ; ) {
    const found = lookup(name);
    if (found !== undefined) return found;
    const dot = name.indexOf(".");
    if (dot === -1) return undefined;
    name = name.slice(dot + 1);
  }
}
