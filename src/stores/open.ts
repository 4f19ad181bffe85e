import { openSqliteStores } from "./sqlite/stores.ts";
import type { Stores } from "./stores.ts";

/**
 * PostgreSQL when a database URL is configured, else the SQLite file. The server opens it
 * `forServing`: a write that finds SQLite locked by another process is retried between
 * requests instead of blocking them (the CLI may simply wait). The PostgreSQL stores are
 * imported only then: a command on the SQLite file starts without them.
 */
export async function openStores(
  config: { readonly databaseUrl: string | null; readonly dbPath: string },
  forServing = false,
): Promise<Stores> {
  if (config.databaseUrl === null) return openSqliteStores(config.dbPath, forServing);
  const { openPostgresStores } = await import("./postgres/stores.ts");
  return openPostgresStores(config.databaseUrl);
}
