import { type AuditLines, auditLines } from "../audit/audit-lines.ts";
import { AuditTrail, type AuditRecorder } from "../audit/audit-trail.ts";
import { auditedKeyStore } from "../audit/audited-key-store.ts";
import { auditedEmailOverrides, auditedIpOverrides } from "../audit/audited-override-stores.ts";
import type { Stores } from "../stores/stores.ts";
import type { Config } from "./config.ts";

/**
 * The audit trail over the database's log, with the JSON lines RISKCHECK_AUDIT_LOG asks for:
 * `stdout` is the process's `standardOutput` (the server's own; standard error for the CLI).
 * A file that cannot be appended to stops the server at start (`strict`); a CLI command says
 * so and records in the database only, so that a command run as another user than the
 * server's still works.
 */
export function openAuditTrail(
  stores: Stores,
  config: Config,
  standardOutput: (text: string) => void,
  logError: (line: string) => void,
  strict: boolean,
): AuditTrail {
  let lines: AuditLines | null = null;
  try {
    lines = auditLines(config.audit.lines, standardOutput);
  } catch (err) {
    if (strict) throw err;
    logError(`riskcheck: ${(err as Error).message}; this command's events are recorded in the database only`);
  }
  return new AuditTrail(stores.audit, { now: Date.now, lines, logError });
}

/** The stores with every key and override change recorded by `audit`'s actor. */
export function auditedStores(stores: Stores, audit: AuditRecorder): Stores {
  return {
    ...stores,
    keys: auditedKeyStore(stores.keys, audit),
    emailOverrides: auditedEmailOverrides(stores.emailOverrides, audit),
    ipOverrides: auditedIpOverrides(stores.ipOverrides, audit),
  };
}

/** Records that opening the database moved its schema (from 0: made it), if it did. */
export async function recordSchemaChange(stores: Stores, audit: AuditRecorder): Promise<void> {
  if (stores.schemaChange === null) return;
  const { from, to } = stores.schemaChange;
  await audit.record("database.migrated", stores.description, {
    change: { schemaVersion: { before: from === 0 ? null : from, after: to } },
    detail: from === 0 ? "a new database" : null,
  });
}
