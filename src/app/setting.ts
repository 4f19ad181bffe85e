import { parseDuration } from "../time/duration.ts";
import { UsageError } from "./usage-error.ts";

/** A setting's command-line flag, on the commands whose tables list it. */
export interface SettingFlag<N extends string = string> {
  readonly name: N;
  /** The value's placeholder in the synopsis, e.g. DIR. */
  readonly value: string;
}

/** A variable a setting replaced: still read, with a warning, as the part of the new text it `means`. */
export interface FormerVariable {
  readonly variable: string;
  readonly means: (value: string) => string;
}

/**
 * One server setting: its variable, its flag if it has one, its default, its documentation,
 * and how its text is read. `T` is its value; a setting whose default is null is null when
 * not given.
 */
export interface Setting<T, N extends string = string, D extends string | null = string | null> {
  readonly variable: string;
  readonly flag?: SettingFlag<N>;
  /** Without a flag: the commands it changes, for their help and the manual (a flag is on the commands that list it). */
  readonly readBy?: readonly string[];
  /** The text that applies when neither the flag nor the variable is given; null: none. */
  readonly default: D;
  /** How the help and the manual say the default, when not as its text (or "none"). */
  readonly shown?: string;
  readonly description: string;
  /** The value the text means; throws a UsageError naming `label` (`--port / RISKCHECK_PORT`) when it means none. */
  readonly read: (text: string, label: string) => T;
  /** For a setting whose text is a comma-separated list: the variables it replaced, read before it. */
  readonly formerly?: readonly FormerVariable[];
}

/** A row of the settings table, its types inferred: the flag's name as written, null for a default of none. */
export function setting<T, const N extends string = never, const D extends string | null = string>(
  row: Setting<T, N, D>,
): Setting<T, N, D> {
  return row;
}

// biome-ignore lint/suspicious/noExplicitAny: a row of any value type.
export type AnySetting = Setting<any, string, string | null>;
/** Settings, and groups of them (a group is one object of the configuration). */
export interface SettingsTable {
  readonly [key: string]: AnySetting | SettingsTable;
}

/** The configuration a table describes: each setting's value under its key. */
export type SettingValues<T extends SettingsTable> = {
  readonly [K in keyof T]: T[K] extends Setting<infer V, string, infer D>
    ? null extends D
      ? V | null
      : V
    : T[K] extends SettingsTable
      ? SettingValues<T[K]>
      : never;
};

export type Flags = { readonly [flag: string]: string | boolean | undefined };
export type Env = Readonly<Record<string, string | undefined>>;

export function isSetting(entry: AnySetting | SettingsTable): entry is AnySetting {
  return typeof entry.variable === "string";
}

/** Every setting of the table, groups walked, in the table's order. */
export function settingsOf(table: SettingsTable): AnySetting[] {
  return Object.values(table).flatMap((entry) => (isSetting(entry) ? [entry] : settingsOf(entry)));
}

/** Where a setting's text came from, as the user wrote it (`--update-every off`, `RISKCHECK_UPDATE_EVERY=off`); null: the default. */
export function settingSource(s: AnySetting, flags: Flags, env: Env): string | null {
  const flagged = s.flag ? flags[s.flag.name] : undefined;
  if (typeof flagged === "string" && flagged !== "") return `--${s.flag!.name} ${flagged}`;
  return env[s.variable] ? `${s.variable}=${env[s.variable]}` : null;
}

/** Every setting's value: the flag wins over the variable, which wins over the default; an empty text is not given. */
export function readSettings<T extends SettingsTable>(
  table: T,
  flags: Flags,
  env: Env,
  warn: (line: string) => void,
): SettingValues<T> {
  const values: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(table))
    values[key] = isSetting(entry) ? readSetting(entry, flags, env, warn) : readSettings(entry, flags, env, warn);
  return Object.freeze(values) as SettingValues<T>;
}

function readSetting(s: AnySetting, flags: Flags, env: Env, warn: (line: string) => void): unknown {
  const flagged = s.flag ? flags[s.flag.name] : undefined;
  const given = (typeof flagged === "string" ? flagged : env[s.variable]) || undefined;
  const former = (s.formerly ?? []).filter((f) => env[f.variable]);
  const formerText = former.map((f) => f.means(env[f.variable]!)).join(",");
  if (former.length > 0)
    warn(
      `${former.map((f) => f.variable).join(", ")} ${former.length === 1 ? "is" : "are"} replaced by ` +
        `${s.variable}, and still read for now: set ${s.variable}=${formerText} instead`,
    );
  const text = [formerText, given].filter(Boolean).join(",") || s.default;
  return text === null ? null : s.read(text, s.flag ? `--${s.flag.name} / ${s.variable}` : s.variable);
}

/** The text as it is. */
export const text = (value: string): string => value;

/** A whole number from `min` to `max`. */
export function wholeNumber(text: string, label: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${label} must be a whole number, got "${text}"`);
  const n = Number(text);
  if (n < min || n > max) throw new UsageError(`${label} must be between ${min} and ${max}, got ${text}`);
  return n;
}

/** `read` for a whole number from `min` to `max`. */
export function wholeNumbers(min: number, max = Number.MAX_SAFE_INTEGER): (text: string, label: string) => number {
  return (text, label) => wholeNumber(text, label, min, max);
}

/** A period such as 24h, 90d or 30m, in milliseconds. */
export function period(text: string, label: string): number {
  const ms = parseDuration(text);
  if (ms === null) throw new UsageError(`${label}: "${text}" is not a period such as 24h, 90d or 30m`);
  return ms;
}

/** `read` for one of a few words. */
export function oneOf<const W extends string>(words: readonly W[]): (text: string, label: string) => W {
  return (text, label) => {
    if ((words as readonly string[]).includes(text)) return text as W;
    throw new UsageError(`${label}: "${text}" is not one of ${words.join(", ")}`);
  };
}
