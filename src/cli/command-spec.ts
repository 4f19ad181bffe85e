import { parseArgs } from "node:util";
import type { AnySetting, Setting } from "../app/setting.ts";
import { UsageError } from "../app/usage-error.ts";

/** One flag of a command: drives both the parser and the help text. */
export interface FlagSpec {
  readonly name: string;
  readonly type: "string" | "boolean";
  /** The value's placeholder in the synopsis, e.g. DIR. */
  readonly value?: string;
  /** The environment variable the flag overrides. */
  readonly env?: string;
  /** What applies when the flag is not given, as shown to the user. */
  readonly default?: string;
  readonly required?: boolean;
  readonly description: string;
}

/** A setting read from the environment only. */
export interface VariableSpec {
  readonly name: string;
  readonly default: string;
  readonly description: string;
}

export interface CommandSpec {
  /** The words that select it: "serve", "keys create". */
  readonly name: string;
  readonly summary: string;
  /** Paragraphs after the synopsis, when the summary is not enough. */
  readonly details?: readonly string[];
  /** A positional argument, required unless `optional`. */
  readonly operand?: { readonly name: string; readonly description: string; readonly optional?: boolean };
  readonly flags: readonly FlagSpec[];
  readonly environment?: readonly VariableSpec[];
  readonly examples: readonly string[];
}

/** A server setting's flag (src/app/server-settings.ts), as the tables of the commands that take it list it. */
export function settingFlag<const N extends string>(s: Setting<unknown, N, string | null>) {
  const { name, value } = s.flag!;
  return {
    name,
    type: "string",
    value,
    env: s.variable,
    default: shownDefault(s),
    description: s.description,
  } as const;
}

/** A server setting without a flag, as the help and the manual list it. */
export function settingVariable(s: AnySetting): VariableSpec {
  return { name: s.variable, default: shownDefault(s), description: s.description };
}

function shownDefault(s: AnySetting): string {
  return s.shown ?? s.default ?? "none";
}

type FlagValue<F extends FlagSpec> = F["type"] extends "boolean" ? boolean : string;
type Flags<C extends CommandSpec> = C["flags"][number];

/** The parsed flags by name; required ones are always there. */
export type FlagValues<C extends CommandSpec> = {
  [F in Flags<C> as F extends { required: true } ? F["name"] : never]: FlagValue<F>;
} & {
  [F in Flags<C> as F extends { required: true } ? never : F["name"]]?: FlagValue<F>;
};

export interface ParsedCommandLine<C extends CommandSpec> {
  readonly values: FlagValues<C>;
  /** The operand, when the command takes one. */
  readonly operand: string;
}

export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** Strict parsing after the command's table; every problem is a one-line UsageError. */
export function parseCommandLine<C extends CommandSpec>(command: C, args: string[]): ParsedCommandLine<C> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    const options = Object.fromEntries(command.flags.map((f) => [f.name, { type: f.type }]));
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (err) {
    const message = (err as Error).message;
    // "--port -1": Node will not take a value that looks like an option; its advice (--port=-1) is on the lines dropped below.
    const ambiguous = /^Option '(--[a-z-]+)' argument is ambiguous/.exec(message);
    if (ambiguous)
      throw new UsageError(`${ambiguous[1]} needs a value; give one that starts with "-" as ${ambiguous[1]}=VALUE`);
    // Node's other messages go on with advice about "--" that does not apply here.
    throw new UsageError(message.split(/\.\s/)[0]);
  }
  const { values, positionals } = parsed;
  const wanted = command.operand ? 1 : 0;
  if (positionals.length > wanted) throw new UsageError(`unexpected argument "${positionals[wanted]}"`);
  if (positionals.length < wanted && !command.operand?.optional)
    throw new UsageError(`${command.name} needs ${command.operand!.name}`);
  for (const flag of command.flags) {
    if (flag.required && values[flag.name] === undefined)
      throw new UsageError(`${command.name} needs --${flag.name} ${flag.value}`);
  }
  return { values: values as FlagValues<C>, operand: positionals[0] ?? "" };
}
