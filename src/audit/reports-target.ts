import { keyTarget } from "./audited-key-store.ts";

/** Which reports a deletion took, as the log names them: an address's, a key's, or one key's of one address. */
export function reportsTarget(ip: string | null, key: { readonly id: string; readonly name: string } | null): string {
  const parts = [ip === null ? null : `address ${ip}`, key === null ? null : `key ${keyTarget(key)}`];
  return parts.filter((p) => p !== null).join(", ");
}
