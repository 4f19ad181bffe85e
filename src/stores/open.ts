import { openPostgresStores } from "./postgres/stores.ts";
import { openSqliteStores } from "./sqlite/stores.ts";
import type { Stores } from "./stores.ts";

/**
 * PostgreSQL when a database URL is configured, else the SQLite file. The server opens it
 * `forServing`: a write that finds SQLite locked by another process is retried between
 * requests instead of blocking them (the CLI may simply wait).
 */
export function openStores(
  config: { readonly databaseUrl: string | null; readonly dbPath: string },
  forServing = false,
): Promise<Stores> {
  return config.databaseUrl === null
    ? Promise.resolve(openSqliteStores(config.dbPath, forServing))
    : openPostgresStores(config.databaseUrl);
}
