/** Providers that deliver `first.last@` and `firstlast@` to the same mailbox; the first is the canonical domain. */
const DOTS_IGNORED: ReadonlyMap<string, string> = new Map([
  ["gmail.com", "gmail.com"],
  ["googlemail.com", "gmail.com"],
]);

export interface AddressParts {
  /** The local part as a mailbox name: a quoted string's content, unescaped. */
  readonly local: string;
  /** Whether it was a quoted string. */
  readonly quoted: boolean;
}

/** The local part of an address already checked by `parseEmailAddress`. */
export function localPartOf(address: string): AddressParts {
  const local = address.slice(0, address.lastIndexOf("@"));
  if (!(local.length >= 2 && local.startsWith('"') && local.endsWith('"'))) return { local, quoted: false };
  return { local: local.slice(1, -1).replace(/\\(.)/g, "$1"), quoted: true };
}

/** Text that can stand unquoted as a dot-atom. */
const DOT_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uffff-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uffff-]+)*$/;

/**
 * The mailbox an address reaches: the sub-address (`+tag`) cut, dots removed where the
 * provider ignores them (lower case there too), a quoted local part unquoted when it can
 * stand without quotes. `domain` is the normalised domain.
 */
export function normalisedAddress(parts: AddressParts, domain: string): { address: string; local: string } {
  let local = parts.local;
  const plus = local.indexOf("+");
  if (plus > 0) local = local.slice(0, plus);
  const canonical = DOTS_IGNORED.get(domain);
  if (canonical !== undefined) local = local.replaceAll(".", "").toLowerCase();
  const written = DOT_ATOM.test(local) ? local : `"${local.replace(/(["\\])/g, "\\$1")}"`;
  return { address: `${written}@${canonical ?? domain}`, local };
}
