import { checkRejects, listText } from "./content-checks.ts";
import type { ParsedSource } from "./parsed-source.ts";
import { KIND_NAMES } from "../../../ip/verdict/network-kinds.ts";
import { MB, type SourceFormatDescriptor } from "./source-format.ts";

/** `AS123 # comment` lines (the "AS" is optional), as X4BNet publishes them. */
export function parseAsnListFeed(bytes: Uint8Array): ParsedSource<number[]> {
  const text = listText(bytes, "a list of AS numbers");
  const asns = new Set<number>();
  let rejected = 0;
  let firstRejected: string | undefined;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const hash = raw.indexOf("#");
    const value = (hash === -1 ? raw : raw.slice(0, hash)).trim();
    if (value === "") continue;
    const match = /^(?:AS)?(\d{1,10})$/i.exec(value);
    if (match && Number(match[1]) <= 0xffffffff) asns.add(Number(match[1]));
    else if (rejected++ === 0) firstRejected = `line ${i + 1}`;
  }
  checkRejects(asns.size, rejected, firstRejected, "AS numbers");
  return { value: [...asns], entries: asns.size, dataDate: null };
}

export const ASN_LIST_FORMAT: SourceFormatDescriptor<"asn-list", number[]> = {
  name: "asn-list",
  targets: KIND_NAMES,
  maxBytes: 1 * MB,
  outputs: ["asn-kinds"],
  labels: false,
  parse: parseAsnListFeed,
};
