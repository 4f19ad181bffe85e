/** One row of an `start,end,asn,organisation` table with numeric bounds (the ip-location-db "-num" CSVs). */
export interface AsnCsvRow {
  start: bigint;
  end: bigint;
  asn: number;
  organization: string;
}

/**
 * Parses the CSV; the organisation may be quoted with doubled quotes inside.
 * Throws with the line number on a malformed row.
 */
export function* parseAsnCsv(text: string, source: string): Generator<AsnCsvRow> {
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
      throw new Error(`${source}:${line}: expected start,end,asn,organisation with numeric bounds`);
    }
    let organization = row.slice(c3 + 1);
    if (organization.startsWith('"')) {
      if (!organization.endsWith('"') || organization.length < 2) throw new Error(`${source}:${line}: unterminated quoted organisation`);
      organization = organization.slice(1, -1).replaceAll('""', '"');
    }
    yield { start: BigInt(start), end: BigInt(end), asn: Number(asn), organization };
  }
}
