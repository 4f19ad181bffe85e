import { existsSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { type Config, ownDbPath } from "../app/config.ts";
import { openStores } from "../stores/open.ts";
import { dataDirKind, notADataDirectory } from "../datasets/data-dir-kind.ts";
import type { StoreWrites } from "../stores/stores.ts";
import { cliActor } from "../audit/actors.ts";
import type { AuditRecorder } from "../audit/audit-trail.ts";
import type { Actor } from "../audit/audit-event.ts";
import { type AuditedStores, auditedStores, openAuditTrail, recordSchemaChange } from "../app/audit-wiring.ts";

/** The flags a command was given that choose its SQLite file. */
type DatabaseFlags = { readonly "data-dir"?: string; readonly db?: string };

/** Where a SQLite database path came from, for messages. */
function databaseOrigin(config: Config, values: DatabaseFlags): string {
  if (values.db !== undefined) return "--db";
  if (process.env.RISKCHECK_DB) return "RISKCHECK_DB";
  if (values["data-dir"] !== undefined) return `--data-dir ${values["data-dir"]}`;
  if (process.env.RISKCHECK_DATA_DIR) return `RISKCHECK_DATA_DIR=${process.env.RISKCHECK_DATA_DIR}`;
  return `the default data directory ${config.dataDir} in ${process.cwd()}`;
}

/**
 * For commands that read or change what is there: a SQLite file that is not there means a wrong
 * data directory (a command run elsewhere than the server), not an empty database to create.
 */
function requireDatabase(config: Config, values: DatabaseFlags): void {
  if (databaseExists(config)) return;
  throw new Error(
    `no database at ${resolvePath(config.dbPath)} (from ${databaseOrigin(config, values)}); nothing was created. ` +
      `Give the --data-dir (or --db) that the server uses: its start-up line names them`,
  );
}

/**
 * For commands that write a new database's first row (a key, the dashboard password): a data
 * directory that is not there means the command runs elsewhere than the server, whose data
 * directory holds its datasets; a database made there would be one no server reads. A new
 * database in a real data directory is made: the returned function says so, once it is.
 */
function prepareDatabase(config: Config, values: DatabaseFlags): () => void {
  if (config.databaseUrl !== null || existsSync(config.dbPath)) return () => {};
  const ownFile = resolvePath(config.dbPath) === resolvePath(ownDbPath(config.dataDir));
  if (ownFile && dataDirKind(config.dataDir) === "foreign")
    throw new Error(notADataDirectory(resolvePath(config.dataDir)));
  if (ownFile && !existsSync(config.dataDir)) {
    throw new Error(
      `${resolvePath(config.dataDir)}: no such data directory (from ${databaseOrigin(config, values)}); nothing ` +
        `was created. Give the --data-dir (or --db) that the server uses: its start-up line names them`,
    );
  }
  return () =>
    console.error(
      `riskcheck: made the new database ${resolvePath(config.dbPath)}; a server reads it when started with the ` +
        `same --data-dir${ownFile ? "" : " and --db"}`,
    );
}

/** What a command does with the stores: every key and override change it makes is on the record, and `audit` records the rest. */
type StoresUse<T> = (stores: AuditedStores, audit: AuditRecorder<StoreWrites>) => Promise<T>;

/**
 * Runs `use` on the configured database's stores, as the CLI's user on this host, and closes
 * them, whatever happens. Events also go to standard error as JSON lines when
 * RISKCHECK_AUDIT_LOG=stdout: standard output is the command's own.
 */
export async function withStores<T>(config: Config, use: StoresUse<T>, actor: Actor = cliActor()): Promise<T> {
  const stores = await openStores(config);
  try {
    const audit = openAuditTrail(
      stores,
      config,
      (text) => process.stderr.write(text),
      (line) => console.error(line),
      false,
    ).as(actor);
    await recordSchemaChange(stores, audit);
    return await use(auditedStores(stores, audit, config.overrideLimits), audit);
  } finally {
    await stores.close();
  }
}

/** Whether the configured database is there: a PostgreSQL one always is (it is made as it opens). */
export function databaseExists(config: Config): boolean {
  return config.databaseUrl !== null || existsSync(config.dbPath);
}

/** `use` on the stores of a database that is there already (`requireDatabase`): reading or removing never makes one. */
export async function withExistingStores<T>(config: Config, values: DatabaseFlags, use: StoresUse<T>): Promise<T> {
  requireDatabase(config, values);
  return withStores(config, use);
}

/** `use` on the stores, the database made first where `prepareDatabase` allows it; says so once `use` succeeded. */
export async function withStoresMadeIfNeeded<T>(config: Config, values: DatabaseFlags, use: StoresUse<T>): Promise<T> {
  const madeNew = prepareDatabase(config, values);
  const result = await withStores(config, use);
  madeNew();
  return result;
}
