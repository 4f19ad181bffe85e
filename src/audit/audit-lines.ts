import { closeSync, constants, openSync, writeSync } from "node:fs";
import type { AuditEntry } from "./audit-event.ts";

/** Where each event also goes as one JSON line, for the team's log shipper (`RISKCHECK_AUDIT_LOG`). */
export type AuditLines = (entry: AuditEntry) => void;

/** The JSON line of one event: `log` tells it apart from the server's other output on the same stream. */
export function auditLine(entry: AuditEntry): string {
  return `${JSON.stringify({ log: "riskcheck.audit", ...entry })}\n`;
}

/**
 * A file opened to append to: made readable by its owner only (0600), and never through a
 * symbolic link (O_NOFOLLOW), so that a link planted where the file goes cannot make the
 * server, or a CLI run as root, append to another file. Opened for each line, so that a log
 * rotation that moves the file away is followed.
 */
function appendTo(path: string, text: string): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
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
    appendTo(setting, "");
  } catch (err) {
    const link = (err as { code?: string }).code === "ELOOP" ? "it is a symbolic link, which is never followed; " : "";
    throw new Error(
      `RISKCHECK_AUDIT_LOG=${setting}: cannot append to the file (${link}${(err as Error).message}); give a writable file, or stdout`,
    );
  }
  return (entry) => appendTo(setting, auditLine(entry));
}
