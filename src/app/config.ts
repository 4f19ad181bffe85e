import { join } from "node:path";
import { SERVER_SETTINGS } from "./server-settings.ts";
import { type Env, type Flags, type SettingValues, readSettings, settingSource } from "./setting.ts";
import { UsageError } from "./usage-error.ts";

/** The server settings' values (src/app/server-settings.ts), with the defaults that depend on another setting filled in. */
export interface Config extends Omit<SettingValues<typeof SERVER_SETTINGS>, "dbPath" | "sourcesFile"> {
  readonly dbPath: string;
  /** The sources `update` and the refresh inside `serve` read. */
  readonly sourcesFile: string;
  /** Where updateEveryMs came from, as the user wrote it: `--update-every off`, `RISKCHECK_UPDATE_EVERY=off`, or null for the default. */
  readonly updateEverySetBy: string | null;
}

/** The SQLite file a data directory holds unless --db / RISKCHECK_DB names another. */
export function ownDbPath(dataDir: string): string {
  return join(dataDir, "riskcheck.sqlite");
}

/** Flags win over the environment, which wins over the defaults; a replaced variable still read is `warn`ed about. */
export function loadConfig(
  flags: Flags,
  env: Env,
  warn: (line: string) => void = (line) => console.error(`riskcheck: warning: ${line}`),
): Config {
  const values = readSettings(SERVER_SETTINGS, flags, env, warn);
  if (values.dbPath !== null && values.databaseUrl !== null)
    throw new UsageError(
      "--db / RISKCHECK_DB and --database-url / RISKCHECK_DATABASE_URL name two databases; set one of them",
    );
  return Object.freeze({
    ...values,
    dbPath: values.dbPath ?? ownDbPath(values.dataDir),
    sourcesFile: values.sourcesFile ?? join(values.dataDir, "sources.json"),
    updateEverySetBy: settingSource(SERVER_SETTINGS.updateEveryMs, flags, env),
  });
}
