import type { StoredReport } from "./report.ts";

const HEADER = "reported_at,ip,category,key_id,key_name,comment\n";

/**
 * Reports as RFC 4180 CSV. A field that a spreadsheet would run as a formula (=, +, -, @,
 * tab, carriage return first) gets a leading apostrophe: comments come from other services.
 */
export function reportsCsv(reports: readonly StoredReport[]): string {
  return HEADER + reports.map((r) => [new Date(r.reportedAtMs).toISOString(), r.ip, r.category, r.keyId, r.keyName, r.comment ?? ""].map(field).join(",") + "\n").join("");
}

function field(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
