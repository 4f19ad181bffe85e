import { SERVER_SETTINGS } from "../app/server-settings.ts";
import { settingsOf } from "../app/setting.ts";
import { KEY_SETTING_ROWS, type ServerLimits } from "../keys/key-settings.ts";
import { type CommandSpec, type FlagSpec, type VariableSpec, settingFlag, settingVariable } from "./command-spec.ts";

/** What the commands take, one table each: the parser and the help text both read them. */

export const DEFAULT_MAX_SHRINK = 0.5;

export const DATA_DIR = settingFlag(SERVER_SETTINGS.dataDir);
export const DB = settingFlag(SERVER_SETTINGS.dbPath);
export const DATABASE_URL = settingFlag(SERVER_SETTINGS.databaseUrl);
export const JSON_OUTPUT = {
  name: "json",
  type: "boolean",
  description: "Print JSON for scripts",
} as const satisfies FlagSpec;
const SOURCES = settingFlag(SERVER_SETTINGS.sourcesFile);
const KEEP_VERSIONS = settingFlag(SERVER_SETTINGS.keepVersions);

/** The server settings without a flag that change what `command` does, in the table's order. */
export function settingVariables(command: string): VariableSpec[] {
  return settingsOf(SERVER_SETTINGS)
    .filter((s) => s.readBy?.includes(command))
    .map(settingVariable);
}

/** Read by `update` and by the refresh that `serve` runs. */
const MAXMIND_SETTINGS = [
  {
    name: "MAXMIND_ACCOUNT_ID",
    default: "none",
    description: "With MAXMIND_LICENSE_KEY, enables the maxmind-* sources",
  },
  { name: "MAXMIND_LICENSE_KEY", default: "none", description: "MaxMind licence key for the maxmind-* sources" },
] as const satisfies readonly VariableSpec[];

export const SERVE = {
  name: "serve",
  summary: "Serve the HTTP API, the dashboard, /openapi.json and /metrics",
  details: [
    "Stops cleanly on SIGTERM or SIGINT: finishes in-flight requests (for up to RISKCHECK_DRAIN_TIMEOUT_MS), " +
      "saves usage counters and, on PostgreSQL, hands back its unused quota leases; a second signal stops at once.",
    "Refreshes the datasets itself every --update-every, through the same pipeline as `riskcheck update`, in a " +
      "child process; data never refreshed from the network is refreshed within a minute.",
    "Reloads the datasets on SIGHUP and whenever a new version becomes current.",
  ],
  flags: [
    settingFlag(SERVER_SETTINGS.host),
    settingFlag(SERVER_SETTINGS.port),
    DATA_DIR,
    DB,
    DATABASE_URL,
    SOURCES,
    settingFlag(SERVER_SETTINGS.updateEveryMs),
    KEEP_VERSIONS,
  ],
  environment: [...settingVariables("serve"), ...MAXMIND_SETTINGS],
  examples: ["riskcheck serve --host 0.0.0.0 --port 8080 --data-dir /var/lib/riskcheck"],
} as const satisfies CommandSpec;

export const UPDATE = {
  name: "update",
  summary: "Refresh the datasets from their sources and make the result the current version",
  details: [
    "Every output is composed from every source that feeds it, the bundled packages included. Downloads are " +
      "checked by content first (an HTML page is refused).",
    "A new version that would shrink an output by more than --max-shrink is refused, naming the sources " +
      "responsible. Exits 1 when a source failed (the others go ahead) or the version was refused.",
    "A running server picks the new version up within seconds.",
    "A version installed, one refused, sources that could not be fetched and a rollback are recorded in the audit " +
      "log of the database that is there (docs/audit.md).",
  ],
  flags: [
    DATA_DIR,
    SOURCES,
    {
      name: "only",
      type: "string",
      value: "NAME,...",
      default: "every source",
      description: "Refresh only these sources; the others keep their data",
    },
    {
      name: "force",
      type: "boolean",
      description:
        "Rebuild every output even when nothing changed, and accept lists or outputs that are empty or shrank more than --max-shrink",
    },
    {
      name: "max-shrink",
      type: "string",
      value: "F",
      default: String(DEFAULT_MAX_SHRINK),
      description: "Refuse a list, or a new version's output, that lost more than this fraction of its entries",
    },
    KEEP_VERSIONS,
    {
      name: "rollback",
      type: "boolean",
      description: "Step back to the version the current one was built on; again for the one before",
    },
    { name: "list", type: "boolean", description: "List the kept versions with their date, sources and counts" },
    JSON_OUTPUT,
    DB,
    DATABASE_URL,
  ],
  environment: [...settingVariables("update"), ...MAXMIND_SETTINGS],
  examples: [
    "riskcheck update --data-dir /var/lib/riskcheck",
    "riskcheck update --only ipsum,spamhaus-drop-v4",
    "riskcheck update --list",
    "riskcheck update --rollback",
  ],
} as const satisfies CommandSpec;

/** What a key without limits of its own follows: the server settings' defaults, as the help says them. */
const SERVER_LIMITS: ServerLimits = {
  ratePerMinute: Number(SERVER_SETTINGS.ratePerMinute.default),
  ipQuotaPerMonth: Number(SERVER_SETTINGS.ipQuotaPerMonth.default),
};

/** The key settings' flags (src/keys/key-settings.ts), as `keys create` or `keys update` takes them. */
function keySettingFlags(on: "create" | "update"): FlagSpec[] {
  return KEY_SETTING_ROWS.map(([, { flag }]) => ({
    name: flag.name,
    type: "string",
    value: flag.value,
    ...(on === "create"
      ? {
          description: flag.create.description,
          ...(flag.create.required ? { required: true } : {}),
          ...(flag.create.default ? { default: flag.create.default(SERVER_LIMITS) } : {}),
        }
      : { description: flag.update.description }),
  }));
}

export const KEYS_CREATE = {
  name: "keys create",
  summary: "Create an API key; its secret is printed once, alone on the last line",
  flags: [...keySettingFlags("create"), JSON_OUTPUT, DATA_DIR, DB, DATABASE_URL],
  examples: [
    "riskcheck keys create --name checkout-backend",
    "riskcheck keys create --name batch --rate-per-minute 60 --json",
    "riskcheck keys create --name waf --permissions check,report",
    "riskcheck keys create --name contractor --expires 30d --allow-from 10.0.0.0/8,2001:db8::/32",
  ],
} as const satisfies CommandSpec;

export const KEYS_LIST = {
  name: "keys list",
  summary: "List every key with its prefix, status, dates, usage and IP quota left (never the secret)",
  flags: [JSON_OUTPUT, DATA_DIR, DB, DATABASE_URL],
  examples: ["riskcheck keys list", "riskcheck keys list --json"],
} as const satisfies CommandSpec;

export const KEYS_REVOKE = {
  name: "keys revoke",
  summary: "Revoke a key; a running server refuses it from its next request",
  operand: { name: "ID_OR_NAME", description: "The key's id, or its name when exactly one active key has it" },
  flags: [DATA_DIR, DB, DATABASE_URL],
  examples: ["riskcheck keys revoke key_AbCdEfGhIjKl", "riskcheck keys revoke checkout-backend"],
} as const satisfies CommandSpec;

export const KEYS_UPDATE = {
  name: "keys update",
  summary:
    "Change a key's name, limits, permissions, expiry or networks; its secret and usage stay, running servers apply it within 3 s",
  operand: { name: "ID_OR_NAME", description: "The key's id, or its name when exactly one active key has it" },
  flags: [...keySettingFlags("update"), JSON_OUTPUT, DATA_DIR, DB, DATABASE_URL],
  examples: [
    "riskcheck keys update checkout-backend --ip-quota-per-month 50000",
    "riskcheck keys update key_AbCdEfGhIjKl --expires never --allow-from any",
    "riskcheck keys update batch --name batch-nightly",
  ],
} as const satisfies CommandSpec;

export const KEYS_ROTATE = {
  name: "keys rotate",
  summary:
    "Give a key a new secret (same id, limits and usage), printed once; the old one works until the grace period ends",
  operand: { name: "ID_OR_NAME", description: "The key's id, or its name when exactly one active key has it" },
  flags: [
    {
      name: "grace",
      type: "string",
      value: "DURATION",
      default: "24h",
      description:
        "How long the old secret keeps working (90s, 30m, 24h, 7d); 0 ends it at once. A rotation still in " +
        "progress ends: its older secret stops",
    },
    JSON_OUTPUT,
    DATA_DIR,
    DB,
    DATABASE_URL,
  ],
  examples: [
    "riskcheck keys rotate checkout-backend",
    "riskcheck keys rotate checkout-backend --grace 2h",
    "riskcheck keys rotate key_AbCdEfGhIjKl --grace 0",
  ],
} as const satisfies CommandSpec;

export const KEYS_USAGE = {
  name: "keys usage",
  summary:
    "A key's requests per day by outcome: answered, rate-limited, over quota, refused (invalid input), forbidden " +
    "(network), and reports accepted",
  operand: {
    name: "ID_OR_NAME",
    description: "The key's id, or its name (revoked keys too, when no active key has it)",
  },
  flags: [
    {
      name: "days",
      type: "string",
      value: "N",
      default: "30",
      description: "How many days back, today included (1 to 400)",
    },
    JSON_OUTPUT,
    DATA_DIR,
    DB,
    DATABASE_URL,
  ],
  examples: ["riskcheck keys usage checkout-backend", "riskcheck keys usage key_AbCdEfGhIjKl --days 7 --json"],
} as const satisfies CommandSpec;

export const ADMIN_SET_PASSWORD = {
  name: "admin set-password",
  summary: "Set the dashboard password, read from standard input; signs every session out",
  flags: [DATA_DIR, DB, DATABASE_URL],
  examples: ["printf '%s' \"$PASSWORD\" | riskcheck admin set-password"],
} as const satisfies CommandSpec;

export const ADMIN_UNLOCK = {
  name: "admin unlock",
  summary: "Lift the dashboard sign-in lock-out of an address, or of every address; a running server sees it at once",
  operand: { name: "ADDRESS", description: "The IP address locked out; all of them when left out", optional: true },
  flags: [DATA_DIR, DB, DATABASE_URL],
  examples: ["riskcheck admin unlock 203.0.113.7", "riskcheck admin unlock"],
} as const satisfies CommandSpec;

export const DB_MIGRATE = {
  name: "db migrate",
  summary:
    "Bring the database's schema up to date; with --from-sqlite, copy a SQLite database into an empty PostgreSQL one",
  details: [
    "serve and every other command migrate the schema on start too; this command does it alone, e.g. before " +
      "starting several upgraded instances.",
    "--from-sqlite copies keys, usage, local reports, email and IP overrides, the dashboard password, sessions " +
      "and sign-in lock-outs in one transaction, and starts this month's quota counts from the copied usage. Stop " +
      "the server that uses the SQLite file first, so that its last usage is in it. The PostgreSQL database must " +
      "have no key yet.",
  ],
  flags: [
    {
      name: "from-sqlite",
      type: "string",
      value: "FILE",
      description: "SQLite database to copy into the PostgreSQL database of --database-url",
    },
    DATA_DIR,
    DB,
    DATABASE_URL,
  ],
  examples: [
    "riskcheck db migrate --database-url postgres://riskcheck@db.internal/riskcheck",
    "RISKCHECK_DATABASE_URL=postgres://riskcheck@db.internal/riskcheck riskcheck db migrate --from-sqlite " +
      "/var/lib/riskcheck/riskcheck.sqlite",
  ],
} as const satisfies CommandSpec;

export const VERSION = {
  name: "version",
  summary: "Print the version",
  flags: [],
  examples: ["riskcheck version"],
} as const satisfies CommandSpec;
