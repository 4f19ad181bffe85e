import { escapeControlCharacters } from "../text/control-characters.ts";
import { spreadsheetCsvField } from "../text/spreadsheet-csv.ts";
import type { StoredReport } from "./report.ts";

const HEADER = "reported_at,ip,category,key_id,key_name,comment\n";

/**
 * Reports as RFC 4180 CSV, one line each. Comments come from other services: their control
 * characters are escaped, and a field that a spreadsheet would run as a formula gets a
 * leading apostrophe.
 */
export function reportsCsv(reports: readonly StoredReport[]): string {
  return (
    HEADER +
    reports
      .map(
        (r) =>
          `${[new Date(r.reportedAtMs).toISOString(), r.ip, r.category, r.keyId, r.keyName, r.comment ?? ""]
            .map((value) => spreadsheetCsvField(escapeControlCharacters(value)))
            .join(",")}\n`,
      )
      .join("")
  );
}
