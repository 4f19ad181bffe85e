import { appendFileSync } from "node:fs";
import type { AuditEntry } from "./audit-event.ts";

/** Where each event also goes as one JSON line, for the team's log shipper (`RISKCHECK_AUDIT_LOG`). */
export type AuditLines = (entry: AuditEntry) => void;

/** The JSON line of one event: `log` tells it apart from the server's other output on the same stream. */
export function auditLine(entry: AuditEntry): string {
  return `${JSON.stringify({ log: "riskcheck.audit", ...entry })}\n`;
}

/**
 * The setting's destination: `stdout` writes to `standardOutput` (the CLI passes standard error,
 * so that its own output stays machine-readable), anything else is a file appended to, one
 * write per line. A file that cannot be appended to is refused now, naming it, rather than at
 * the first event.
 */
export function auditLines(setting: string | null, standardOutput: (text: string) => void): AuditLines | null {
  if (setting === null || setting === "") return null;
  if (setting === "stdout") return (entry) => standardOutput(auditLine(entry));
  try {
    appendFileSync(setting, "");
  } catch (err) {
    throw new Error(
      `RISKCHECK_AUDIT_LOG=${setting}: cannot append to the file (${(err as Error).message}); give a writable file, or stdout`,
    );
  }
  return (entry) => appendFileSync(setting, auditLine(entry));
}
