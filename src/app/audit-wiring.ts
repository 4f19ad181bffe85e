import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { type AuditLines, auditLines } from "../audit/audit-lines.ts";
import { dataFiles } from "../datasets/data-layout.ts";
import { AuditTrail, type AuditRecorder } from "../audit/audit-trail.ts";
import { auditedKeyStore } from "../audit/audited-key-store.ts";
import { type AuditedLines, auditedEmailOverrides, auditedIpOverrides } from "../audit/audited-override-stores.ts";
import type { OverrideLimits, OverrideLine } from "../email/overrides.ts";
import type { IpOverrideLine } from "../ip/overrides/ip-override.ts";
import type { StoreWrites, Stores } from "../stores/stores.ts";
import type { Config } from "./config.ts";

/**
 * The audit trail over the database's log, with the JSON lines RISKCHECK_AUDIT_LOG asks for:
 * `stdout` is the process's `standardOutput` (the server's own; standard error for the CLI).
 * The server (`serving`) notes a file it writes to in its data directory, so that a CLI
 * command run on that directory without the variable writes its events there too: every
 * channel's acts reach the one file. A file that cannot be appended to stops the server at
 * start; a CLI command says so and records in the database only, so that a command run as
 * another user than the server's still works.
 */
export function openAuditTrail(
  stores: Stores,
  config: Config,
  standardOutput: (text: string) => void,
  logError: (line: string) => void,
  serving: boolean,
): AuditTrail<StoreWrites> {
  const note = dataFiles(config.dataDir).auditLinesFile;
  const setting = serving ? config.audit.lines : (config.audit.lines ?? notedFile(note));
  let lines: AuditLines | null = null;
  try {
    lines = auditLines(setting, standardOutput);
  } catch (err) {
    if (serving) throw err;
    logError(`riskcheck: ${(err as Error).message}; this command's events are recorded in the database only`);
  }
  if (serving) noteFile(note, setting === null || setting === "stdout" ? null : resolve(setting), logError);
  return new AuditTrail(stores, { now: Date.now, lines, logError });
}

/** The file the data directory's server writes its JSON lines to, or null. */
function notedFile(note: string): string | null {
  return existsSync(note) ? readFileSync(note, "utf8").trim() || null : null;
}

/** Notes the file (null: none, the note goes), replaced at once so that a CLI never reads half a path. */
function noteFile(note: string, file: string | null, logError: (line: string) => void): void {
  try {
    if (file === null) rmSync(note, { force: true });
    else {
      writeFileSync(`${note}.new`, `${file}\n`);
      renameSync(`${note}.new`, note);
    }
  } catch (err) {
    logError(
      `riskcheck: could not note the audit log's file for the CLI in ${note} (${(err as Error).message}); CLI ` +
        `commands write their events there only with RISKCHECK_AUDIT_LOG set`,
    );
  }
}

/** The stores a command uses, every key and override change recorded by its actor (and no transaction of its own). */
export type AuditedStores = Omit<Stores, "emailOverrides" | "ipOverrides" | "transaction"> & {
  readonly emailOverrides: AuditedLines<OverrideLine>;
  readonly ipOverrides: AuditedLines<IpOverrideLine>;
};

/** The stores with every key and override change recorded by `audit`'s actor. */
export function auditedStores(
  stores: Stores,
  audit: AuditRecorder<StoreWrites>,
  limits: OverrideLimits,
): AuditedStores {
  const { transaction: _, ...rest } = stores;
  return {
    ...rest,
    keys: auditedKeyStore(stores.keys, audit),
    emailOverrides: auditedEmailOverrides(stores.emailOverrides, audit, limits),
    ipOverrides: auditedIpOverrides(stores.ipOverrides, audit, limits),
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
