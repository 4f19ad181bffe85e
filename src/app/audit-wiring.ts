import { auditLines } from "../audit/audit-lines.ts";
import { AuditTrail, type AuditRecorder } from "../audit/audit-trail.ts";
import { auditedKeyStore } from "../audit/audited-key-store.ts";
import { auditedEmailOverrides, auditedIpOverrides } from "../audit/audited-override-stores.ts";
import type { Stores } from "../stores/stores.ts";
import type { Config } from "./config.ts";

/**
 * The audit trail over the database's log, with the JSON lines RISKCHECK_AUDIT_LOG asks for:
 * `stdout` is the process's `standardOutput` (the server's own; standard error for the CLI).
 */
export function openAuditTrail(
  stores: Stores,
  config: Config,
  standardOutput: (text: string) => void,
  logError: (line: string) => void,
  now: () => number = Date.now,
): AuditTrail {
  return new AuditTrail(stores.audit, { now, lines: auditLines(config.audit.lines, standardOutput), logError });
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
