import { normaliseDomain } from "./domain-name.ts";

const MAX_ADDRESS_OCTETS = 254;
const MAX_LOCAL_OCTETS = 64;
/** Longer input is refused before any work is done on it. */
const MAX_INPUT_LENGTH = 1024;

/**
 * Checks an address against the contract's syntax and returns its domain,
 * normalised to lower-case ASCII, or null. Every loop is a single linear pass.
 */
export function parseEmailAddress(raw: string): { domain: string } | null {
  if (raw.length === 0 || raw.length > MAX_INPUT_LENGTH || hasSpaceOrControl(raw)) return null;
  const at = raw.lastIndexOf("@");
  if (at <= 0 || at === raw.length - 1) return null;
  const local = raw.slice(0, at);
  const localOctets = Buffer.byteLength(local, "utf8");
  if (localOctets > MAX_LOCAL_OCTETS || !(isDotAtom(local) || isQuotedString(local))) return null;
  const domain = normaliseDomain(raw.slice(at + 1));
  if (domain === null || localOctets + 1 + domain.length > MAX_ADDRESS_OCTETS) return null;
  return { domain };
}

function hasSpaceOrControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || (c >= 0x7f && c <= 0xa0)) return true;
    if (c >= 0x1680 && isUnicodeSpaceOrFormat(c)) return true;
  }
  return false;
}

function isUnicodeSpaceOrFormat(c: number): boolean {
  return (
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200f) ||
    (c >= 0x2028 && c <= 0x202f) ||
    (c >= 0x205f && c <= 0x206f) ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** RFC 5322 atext among ASCII characters: letters, digits and these. */
const ASCII_ATEXT = new Uint8Array(128);
for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~")
  ASCII_ATEXT[c.charCodeAt(0)] = 1;

/** RFC 5322 atext, plus any non-ASCII character (RFC 6532). */
function isAtext(c: number): boolean {
  return c >= 0x80 || ASCII_ATEXT[c] === 1;
}

function isDotAtom(local: string): boolean {
  let previousWasDot = true; // a leading dot is refused like a double one
  for (let i = 0; i < local.length; i++) {
    const c = local.charCodeAt(i);
    if (c === 0x2e) {
      if (previousWasDot) return false;
      previousWasDot = true;
    } else if (isAtext(c)) {
      previousWasDot = false;
    } else {
      return false;
    }
  }
  return !previousWasDot;
}

/** `"…"` with printable characters inside; `\` escapes the next printable ASCII character. */
function isQuotedString(local: string): boolean {
  if (local.length < 3 || local.charCodeAt(0) !== 0x22 || local.charCodeAt(local.length - 1) !== 0x22) return false;
  for (let i = 1; i < local.length - 1; i++) {
    const c = local.charCodeAt(i);
    if (c === 0x22) return false;
    if (c === 0x5c) {
      i++;
      if (i >= local.length - 1) return false;
    }
  }
  return true;
}
