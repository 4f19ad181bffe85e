import { ANYWHERE, allowedNetworksOf, parseAllowedNetworks } from "./allowed-networks.ts";
import { parseExpiry } from "./expiry.ts";
import { utcMinute } from "../time/utc-minute.ts";
import { KEY_NAME_MAX_LENGTH, normaliseKeyName } from "./key-name.ts";
import {
  DEFAULT_PERMISSIONS,
  PERMISSIONS,
  type Permission,
  parsePermissions,
  permissionsOf,
  permissionsText,
} from "./permissions.ts";

/**
 * The largest per-key rate or quota: PostgreSQL's INTEGER, so a key that SQLite accepts
 * can be moved to PostgreSQL (`db migrate`) and the other way round.
 */
export const MAX_KEY_LIMIT = 2_147_483_647;

/** A value, or an error sentence saying why there is none. */
export type Checked<T> = { readonly value: T } | { readonly error: string };

/** The server's own limits, which a key without its own follows: what the help and the form say of them. */
export interface ServerLimits {
  readonly ratePerMinute: number;
  readonly ipQuotaPerMonth: number;
}

/** A stored column's value, in either database. */
export type ColumnValue = string | number | null;

/** The setting's flag on `keys create` and `keys update`. */
export interface KeySettingFlag<T> {
  readonly name: string;
  /** The value's placeholder in the synopsis, e.g. N. */
  readonly value: string;
  readonly create: {
    readonly description: string;
    readonly required?: boolean;
    /** What a key created without the flag gets, as the help says it. */
    readonly default?: (server: ServerLimits) => string;
  };
  readonly update: { readonly description: string };
  /** The value the flag's text means, or an error sentence that names the flag. */
  parse(text: string, on: "create" | "update", nowMs: number): Checked<T>;
}

/** The setting's field on the dashboard's key page. */
export interface KeySettingField<T> {
  /** The form field's name. */
  readonly name: string;
  readonly label: string;
  /** A text input (numeric: the phone's keypad), or one checkbox per choice. */
  readonly input:
    | { readonly kind: "text"; readonly numeric?: boolean; readonly required?: boolean; readonly maxLength?: number }
    | {
        readonly kind: "choices";
        /** `help`: what the choice means, beside its box on the key's page. */
        readonly choices: readonly { readonly value: string; readonly words: string; readonly help?: string }[];
        /** A hidden field that says the boxes were on the form, so that none ticked is a choice, not an old form. */
        readonly shownBy: string;
      };
  /** On the keys page's form that creates a key too, with its own label and placeholder there. */
  readonly creation?: { readonly label?: string; readonly placeholder?: string };
  /** The field's text for the value the key has (a choice: the values ticked, comma-separated). */
  shown(value: T): string;
  placeholder?(server: ServerLimits): string;
  help?(server: ServerLimits): string;
  /** The value the form asks for, or an error sentence; `current` is the key's value, undefined on the create form. */
  read(form: URLSearchParams, current: T | undefined, nowMs: number): Checked<T>;
}

/**
 * One setting of an API key that the operator chooses: its column in both databases, a new
 * key's value, the check every change passes, its flag on `keys create` and `keys update` and
 * its field on the dashboard. The audit log records it under its key in KEY_SETTINGS.
 */
export interface KeySetting<T> {
  /** Its column in both databases (a migration in each adds it) and its name in the CLI's JSON. */
  readonly column: string;
  /** A new key's value when none is given; left out: it must be given. */
  readonly default?: T;
  /** The value as the store keeps it, or why it cannot: every change passes here, from any channel. */
  check(value: T): Checked<T>;
  toColumn(value: T): ColumnValue;
  fromColumn(stored: ColumnValue): T;
  readonly flag: KeySettingFlag<T>;
  readonly form: KeySettingField<T>;
}

function keySetting<T>(row: KeySetting<T>): KeySetting<T> {
  return row;
}

/** The form field's value when given exactly once, else undefined. */
function once(form: URLSearchParams, name: string): string | undefined {
  const values = form.getAll(name);
  return values.length === 1 ? values[0] : undefined;
}

const asIs = <T>(value: T): Checked<T> => ({ value });

/** A per-key rate or quota: null follows the server's setting, 0 is unlimited. */
function limit(
  column: string,
  texts: Omit<KeySettingFlag<number | null>, "value" | "parse"> & LimitForm,
): KeySetting<number | null> {
  const flag = `--${texts.name}`;
  return keySetting<number | null>({
    column,
    default: null,
    check: (value) =>
      value === null || (Number.isInteger(value) && value >= 0 && value <= MAX_KEY_LIMIT)
        ? { value }
        : { error: `a limit must be a whole number from 0 to ${MAX_KEY_LIMIT}` },
    toColumn: (value) => value,
    fromColumn: (stored) => stored as number | null,
    flag: {
      ...texts,
      value: "N",
      parse: (text, on) => {
        // Empty is a mistake, not 0 (which means unlimited); absent is the server's setting, and `default` returns to it.
        if (on === "update" && text === "default") return { value: null };
        if (text === "")
          return {
            error:
              on === "create"
                ? `${flag} needs a number (0 for no limit); leave the flag out for the server's default`
                : `${flag} needs a number (0 for no limit), or default for the server's setting`,
          };
        if (!/^\d+$/.test(text)) return { error: `${flag} must be a whole number, got "${text}"` };
        const n = Number(text);
        return n <= MAX_KEY_LIMIT
          ? { value: n }
          : { error: `${flag} must be between 0 and ${MAX_KEY_LIMIT}, got ${text}` };
      },
    },
    form: {
      name: texts.field,
      label: texts.label,
      input: { kind: "text", numeric: true },
      shown: (value) => (value === null ? "" : String(value)),
      placeholder: texts.placeholder,
      help: texts.help,
      read: (form) => {
        const value = (once(form, texts.field) ?? "").trim();
        if (value === "") return { value: null };
        if (!/^\d{1,10}$/.test(value) || Number(value) > MAX_KEY_LIMIT)
          return {
            error: `${texts.label} must be empty (the server's setting) or a whole number from 0 to ${MAX_KEY_LIMIT}`,
          };
        return { value: Number(value) };
      },
    },
  });
}
interface LimitForm {
  readonly field: string;
  readonly label: string;
  placeholder(server: ServerLimits): string;
  help(server: ServerLimits): string;
}

const PERMISSIONS_SHOWN = "permissions-shown";

/** An expiry as the key page's form shows it, and takes it back unchanged. */
const shownExpiry = (expiresAt: string | null) => (expiresAt === null ? "never" : utcMinute(expiresAt));

/** What each permission lets a key do, beside its box on the dashboard, and on the key's page what that means. */
const PERMISSION_WORDS: Readonly<Record<Permission, { words: string; help: string }>> = {
  check: {
    words: "check addresses",
    help: "GET /v1/check, GET /v1/ip-reputation-check and their batch.",
  },
  report: {
    words: "report abuse (POST /v1/reports)",
    help: "Its reports count in the verdict that every key gets for the address.",
  },
  manage: {
    words: "manage override lines (/v1/overrides)",
    help:
      "Adds and removes the email and IP override lines, which decide over every list for every key: " +
      "for the operators' own tools only.",
  },
};

/**
 * Every setting of a key, one row each. The KeyRecord field and the audit log's name are the
 * row's key; the stores' row mapping, the CLI's flags and JSON, the dashboard's form and the
 * audit log's change text follow from the rows.
 *
 * A new setting is a row here, a migration adding its column in each database
 * (src/stores/sqlite/database.ts, src/stores/postgres/database.ts), and its consumer.
 */
export const KEY_SETTINGS = {
  name: keySetting<string>({
    column: "name",
    check: (raw) => {
      const checked = normaliseKeyName(raw);
      return "error" in checked ? checked : { value: checked.name };
    },
    toColumn: (name) => name,
    fromColumn: (stored) => stored as string,
    flag: {
      name: "name",
      value: "NAME",
      create: { description: "Descriptive name shown in lists and the dashboard", required: true },
      update: { description: "A new name; no other active key may have it" },
      parse: asIs,
    },
    form: {
      name: "name",
      label: "Name",
      input: { kind: "text", required: true, maxLength: KEY_NAME_MAX_LENGTH },
      creation: { label: "Descriptive name", placeholder: "e.g. checkout back end" },
      shown: (name) => name,
      read: (form) => ({ value: once(form, "name") ?? "" }),
    },
  }),
  ratePerMinute: limit("rate_per_minute", {
    name: "rate-per-minute",
    create: {
      description: "This key's token-bucket refill per minute; 0 is unlimited (no rate limit), at most 2147483647",
      default: (server) => `the server's RISKCHECK_RATE_PER_MINUTE, ${server.ratePerMinute}`,
    },
    update: {
      description: "This key's token-bucket refill per minute; 0 is unlimited; default: back to the server's setting",
    },
    field: "rate",
    label: "Requests per minute",
    placeholder: () => "the server's setting",
    help: () => "Empty: the server's setting; 0: no limit.",
  }),
  ipQuotaPerMonth: limit("ip_quota_per_month", {
    name: "ip-quota-per-month",
    create: {
      description: "This key's monthly quota of IP checks; 0 is unlimited, at most 2147483647",
      default: (server) => `the server's RISKCHECK_IP_QUOTA_PER_MONTH, ${server.ipQuotaPerMonth}`,
    },
    update: {
      description:
        "This key's monthly quota of IP checks (what it used this month still counts); 0 is unlimited; " +
        "default: back to the server's setting",
    },
    field: "quota",
    label: "IP checks per month",
    placeholder: (server) => `the server's, ${server.ipQuotaPerMonth}`,
    help: (server) =>
      `Empty: the server's setting (${server.ipQuotaPerMonth === 0 ? "unlimited" : server.ipQuotaPerMonth.toLocaleString("en-US")}); ` +
      "0: unlimited. What the key used this month still counts.",
  }),
  permissions: keySetting<readonly Permission[]>({
    column: "permissions",
    default: DEFAULT_PERMISSIONS,
    check: asIs,
    toColumn: permissionsText,
    fromColumn: (stored) => permissionsOf(stored as string),
    flag: {
      name: "permissions",
      value: "LIST",
      create: {
        description:
          "What the key may do, comma-separated: check (the check endpoints), report (POST /v1/reports), " +
          "manage (the override lines, /v1/overrides)",
        default: () => "check",
      },
      update: { description: "What the key may do, comma-separated, replacing what it had: check, report, manage" },
      parse: (text) => {
        const parsed = parsePermissions(text);
        return "error" in parsed ? { error: `--permissions: ${parsed.error}` } : { value: parsed.permissions };
      },
    },
    form: {
      name: "permission",
      label: "Permissions",
      input: {
        kind: "choices",
        choices: PERMISSIONS.map((p) => ({ value: p, ...PERMISSION_WORDS[p] })),
        shownBy: PERMISSIONS_SHOWN,
      },
      creation: {},
      shown: permissionsText,
      read: (form) => {
        // A form without the boxes (made before they existed) asks for the default.
        if (form.get(PERMISSIONS_SHOWN) === null && form.getAll("permission").length === 0)
          return { value: DEFAULT_PERMISSIONS };
        const parsed = parsePermissions(form.getAll("permission").join(","));
        return "error" in parsed ? parsed : { value: parsed.permissions };
      },
    },
  }),
  /** After this instant the key answers 401 "API key revoked" (the spec's word for revoked or expired). */
  expiresAt: keySetting<string | null>({
    column: "expires_at",
    default: null,
    check: (expiresAt) => {
      if (expiresAt === null) return { value: null };
      const ms = Date.parse(expiresAt);
      return Number.isNaN(ms)
        ? { error: `"${expiresAt}" is not a date and time` }
        : { value: new Date(ms).toISOString() };
    },
    toColumn: (expiresAt) => expiresAt,
    fromColumn: (stored) => stored as string | null,
    flag: {
      name: "expires",
      value: "WHEN",
      create: {
        description:
          "After this the key answers 401 (API key revoked): a duration from now (30d, 12h), a date (2027-01-31, " +
          "the start of that day UTC), a date and time with its zone (2027-01-31T18:00:00Z), or never",
        default: () => "never",
      },
      update: {
        description:
          "After this the key answers 401 (API key revoked): a duration from now (30d, 12h), a date (2027-01-31, " +
          "the start of that day UTC), a date and time with its zone (2027-01-31T18:00:00Z), or never",
      },
      parse: (text, _on, nowMs) => {
        const parsed = parseExpiry(text, nowMs);
        return "error" in parsed ? { error: `--expires: ${parsed.error}` } : { value: parsed.expiresAt };
      },
    },
    form: {
      name: "expires",
      label: "Expires",
      input: { kind: "text" },
      shown: shownExpiry,
      help: () =>
        "never, a duration from now (30d, 12h), a date (2027-01-31, UTC) or a date and time (2027-01-31 18:00 UTC).",
      read: (form, current, nowMs) => {
        // An expiry left as it was stays (to the millisecond, though shown to the minute), even one that has passed.
        const text = once(form, "expires") ?? "";
        if (current !== undefined && text === shownExpiry(current)) return { value: current };
        const parsed = parseExpiry(text, nowMs);
        return "error" in parsed ? parsed : { value: parsed.expiresAt };
      },
    },
  }),
  /** CIDRs the key is accepted from (the client address the server resolves); empty: anywhere. */
  allowedNetworks: keySetting<readonly string[]>({
    column: "allowed_networks",
    default: [],
    check: (networks) => {
      const parsed = allowedNetworksOf(networks);
      return "error" in parsed ? parsed : { value: parsed.networks };
    },
    toColumn: (networks) => (networks.length === 0 ? null : networks.join(",")),
    fromColumn: (stored) => (stored === null ? [] : String(stored).split(",")),
    flag: {
      name: "allow-from",
      value: "CIDR,...",
      create: {
        description:
          "Client addresses the key works from (as the server resolves them, trusted proxies included), " +
          "comma-separated; from elsewhere 403 forbidden. any: anywhere",
        default: () => "anywhere",
      },
      update: {
        description:
          "Client addresses the key works from (as the server resolves them, trusted proxies included), " +
          "comma-separated; from elsewhere 403 forbidden. any: anywhere",
      },
      parse: (text) => {
        const parsed = parseAllowedNetworks(text);
        return "error" in parsed ? { error: `--allow-from: ${parsed.error}` } : { value: parsed.networks };
      },
    },
    form: {
      name: "allow-from",
      label: "Allowed from",
      input: { kind: "text" },
      shown: (networks) => (networks.length === 0 ? ANYWHERE : networks.join(", ")),
      placeholder: () => ANYWHERE,
      help: () =>
        `Addresses or CIDRs, comma-separated (10.0.0.0/8, 2001:db8::/32), or ${ANYWHERE}. Elsewhere the API answers 403.`,
      read: (form) => {
        const parsed = parseAllowedNetworks(once(form, "allow-from") ?? "");
        return "error" in parsed ? parsed : { value: parsed.networks };
      },
    },
  }),
} as const;

type Table = typeof KEY_SETTINGS;
export type KeySettingName = keyof Table;

/** A key's settings by name, as the record holds them. */
export type KeySettings = { readonly [K in KeySettingName]: Table[K] extends KeySetting<infer T> ? T : never };

export const KEY_SETTING_NAMES = Object.keys(KEY_SETTINGS) as readonly KeySettingName[];

/** Every setting with its name, in the table's order, its value's type forgotten: for the loops over all of them. */
export const KEY_SETTING_ROWS = Object.entries(KEY_SETTINGS) as unknown as readonly (readonly [
  KeySettingName,
  KeySetting<unknown>,
])[];
