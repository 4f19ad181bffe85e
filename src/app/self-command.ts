import { join, relative, resolve } from "node:path";
import type { WarningCommands } from "../datasets/freshness.ts";
import { RUNNING_COMPILED } from "../runtime/compiled.ts";
import { type Config, ownDbPath } from "./config.ts";
import { redactedDatabaseUrl } from "../stores/postgres/connection-url.ts";

/** A word for a POSIX shell: as it is when it is safe, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** How this program runs itself, for a child process: the compiled binary, or Bun with the script. */
export function selfArgv(): string[] {
  return RUNNING_COMPILED ? [process.execPath] : [process.execPath, Bun.main];
}

/**
 * How to run this program again, for hints printed to the user, so that a hint can be pasted
 * as it is from any directory: the compiled binary's absolute path, `npx bun src/cli/main.ts` in
 * the project's folder, or else Bun's and the script's absolute paths.
 */
export function selfCommand(cwd = process.cwd()): string {
  if (RUNNING_COMPILED) return shellWord(process.execPath);
  if (relative(cwd, Bun.main) === join("src", "cli", "main.ts")) return "npx bun src/cli/main.ts";
  return `${shellWord(process.execPath)} ${shellWord(Bun.main)}`;
}

/**
 * The flags that make another command use the database this one used: the data directory
 * (absolute) and, when it is not the data directory's own, the SQLite file. A PostgreSQL URL
 * carries a password, so it is not printed: the hint says to set it as the server has it.
 */
function databaseFlags(config: Config): { flags: string; note: string } {
  if (config.databaseUrl !== null)
    return {
      flags: "",
      note: ` (with RISKCHECK_DATABASE_URL set to ${redactedDatabaseUrl(config.databaseUrl)}, as this server has it)`,
    };
  const dataDir = resolve(config.dataDir);
  const db = resolve(config.dbPath);
  const flags = ` --data-dir ${shellWord(dataDir)}${db === ownDbPath(dataDir) ? "" : ` --db ${shellWord(db)}`}`;
  return { flags, note: "" };
}

/** A command line to paste: this program, the subcommand and its arguments, then the flags of this database. */
export function hint(config: Config, args: string): string {
  const { flags, note } = databaseFlags(config);
  return `${selfCommand()} ${args}${flags}${note}`;
}

/** `update` for this server's data: it takes the data directory (and a sources file of its own), never a database. */
export function updateHint(config: Config): string {
  const dataDir = resolve(config.dataDir);
  const sources = resolve(config.sourcesFile);
  const ownSources = sources === join(dataDir, "sources.json") ? "" : ` --sources ${shellWord(sources)}`;
  return `${selfCommand()} update --data-dir ${shellWord(dataDir)}${ownSources}`;
}

/** The commands /healthz's and the dashboard's warnings name, for this server's data and database. */
export function warningCommands(config: Config): WarningCommands {
  return {
    update: updateHint(config),
    settle: hint(config, 'email deny NAME --reason "why"'),
    refreshOffBy: config.updateEverySetBy ?? "--update-every off",
  };
}
