import type { AsnRange } from "../../../ip/indexes/asn-index.ts";
import { listText } from "./content-checks.ts";
import { ContentError, type ParsedSource } from "./parsed-source.ts";
import { MB, type SourceFormatDescriptor } from "./source-format.ts";

/**
 * `start,end,asn,organisation` with numeric bounds (the ip-location-db "-num" CSVs); the
 * organisation may be quoted with doubled quotes inside. A malformed row refuses the
 * file, naming its line: the table is generated, so one bad row means a bad file.
 * The value reads the checked text again row by row rather than hold half a million
 * row objects at once.
 */
export function parseAsnCsv(bytes: Uint8Array): ParsedSource<() => Iterable<AsnRange>> {
  const text = listText(bytes, "an ASN table");
  let rows = 0;
  for (const _ of asnCsvRows(text)) rows++;
  if (rows === 0) throw new ContentError("has no rows");
  return { value: () => asnCsvRows(text), entries: rows, dataDate: null };
}

export function* asnCsvRows(text: string): Generator<AsnRange> {
  let line = 0;
  let at = 0;
  while (at < text.length) {
    let eol = text.indexOf("\n", at);
    if (eol === -1) eol = text.length;
    line++;
    const row = text.slice(at, text.charCodeAt(eol - 1) === 13 ? eol - 1 : eol);
    at = eol + 1;
    if (row === "") continue;
    const c1 = row.indexOf(",");
    const c2 = row.indexOf(",", c1 + 1);
    const c3 = row.indexOf(",", c2 + 1);
    const start = row.slice(0, c1);
    const end = row.slice(c1 + 1, c2);
    const asn = row.slice(c2 + 1, c3);
    if (c1 <= 0 || c2 <= 0 || c3 <= 0 || !/^\d+$/.test(start) || !/^\d+$/.test(end) || !/^\d+$/.test(asn)) {
      throw new ContentError(`line ${line}: expected start,end,asn,organisation with numeric bounds`);
    }
    let organization = row.slice(c3 + 1);
    if (organization.startsWith('"')) {
      if (!organization.endsWith('"') || organization.length < 2)
        throw new ContentError(`line ${line}: unterminated quoted organisation`);
      organization = organization.slice(1, -1).replaceAll('""', '"');
    }
    const first = BigInt(start);
    const last = BigInt(end);
    if (first > last || last > MAX_V6) throw new ContentError(`line ${line}: ${start}–${end} is not an address range`);
    // Global IPv6 space lies far above 2^32, so a row's family follows from its numbers.
    yield { version: last > 0xffffffffn ? 6 : 4, first, last, asn: Number(asn), organization };
  }
}

const MAX_V6 = (1n << 128n) - 1n;

/** The ASN CSV is 21 MB. */
export const ASN_CSV_FORMAT: SourceFormatDescriptor<"asn-csv", () => Iterable<AsnRange>> = {
  name: "asn-csv",
  targets: ["asn"],
  maxBytes: 64 * MB,
  outputs: ["asn-index"],
  labels: false,
  parse: parseAsnCsv,
};
