/**
 * `riskcheck COMMAND …`: finds the command the words name, parses its flags, prints help or
 * a usage error, and runs it. The commands live one group a file beside this one.
 */
import pkg from "../../package.json" with { type: "json" };
import { type CommandSpec, type ParsedCommandLine, parseCommandLine, wantsHelp } from "./command-spec.ts";
import {
  ADMIN_SET_PASSWORD,
  ADMIN_UNLOCK,
  DB_MIGRATE,
  KEYS_CREATE,
  KEYS_LIST,
  KEYS_REVOKE,
  KEYS_ROTATE,
  KEYS_UPDATE,
  KEYS_USAGE,
  SERVE,
  UPDATE,
  VERSION,
} from "./commands.ts";
import { commandHelp, commandList } from "./help.ts";
import { REPORTS_DELETE, REPORTS_EXPORT, REPORTS_LIST, deleteReports, exportReports, listReports } from "./reports.ts";
import { SCAN, runScan } from "./scan.ts";
import { UsageError } from "../app/usage-error.ts";
import { selfCommand } from "../app/self-command.ts";
import {
  EMAIL_ALLOW,
  EMAIL_DENY,
  EMAIL_LIST,
  EMAIL_REMOVE,
  allowDomain,
  denyDomain,
  listOverrides,
  removeOverride,
} from "./email.ts";
import { createKey, keyUsage, listKeys, revokeKey, rotateKey, updateKey } from "./keys.ts";
import { IP_ALLOW, IP_DENY, IP_LIST, IP_REMOVE, allowIp, denyIp, listIpOverrides, removeIpOverride } from "./ip.ts";
import {
  POLICY_ADD,
  POLICY_ENFORCE,
  POLICY_EXPORT,
  POLICY_IMPORT,
  POLICY_LIST,
  POLICY_MOVE,
  POLICY_REMOVE,
  POLICY_SHADOW,
  addRule,
  enforceRule,
  exportPolicy,
  importPolicy,
  listPolicy,
  moveRuleTo,
  removeRuleById,
  shadowRule,
} from "./policy.ts";
import { migrateDatabase } from "./db.ts";
import { setPassword, unlock } from "./admin.ts";
import { AUDIT_EXPORT, AUDIT_LIST, exportAudit, listAudit } from "./audit.ts";
import type { RunContext } from "./start-serve-load.ts";
import { BUILD_INFO } from "../runtime/build-info.ts";

function version(): number {
  // The binary names what it was built from and the data it carries.
  console.log(
    BUILD_INFO
      ? `riskcheck ${pkg.version} (commit ${BUILD_INFO.commit}, embedded data of ${BUILD_INFO.dataDate})`
      : `riskcheck ${pkg.version}`,
  );
  return 0;
}

interface Command {
  readonly spec: CommandSpec;
  run(args: string[], context: RunContext): Promise<number>;
}

function command<C extends CommandSpec>(
  spec: C,
  run: (parsed: ParsedCommandLine<C>, context: RunContext) => number | Promise<number>,
): Command {
  return { spec, run: async (args, context) => run(parseCommandLine(spec, args), context) };
}

const COMMANDS: readonly Command[] = [
  // serve and update load Elysia and the dataset code when they run (scan does too, in scan.ts):
  // keys, email, help and the other commands start without it, several times faster.
  command(SERVE, async (parsed, context) => (await import("./serve.ts")).serve(parsed, context)),
  command(UPDATE, async (parsed) => (await import("./update.ts")).update(parsed)),
  command(SCAN, runScan),
  command(KEYS_CREATE, createKey),
  command(KEYS_LIST, listKeys),
  command(KEYS_REVOKE, revokeKey),
  command(KEYS_UPDATE, updateKey),
  command(KEYS_ROTATE, rotateKey),
  command(KEYS_USAGE, keyUsage),
  command(REPORTS_LIST, listReports),
  command(REPORTS_EXPORT, exportReports),
  command(REPORTS_DELETE, deleteReports),
  command(ADMIN_SET_PASSWORD, setPassword),
  command(ADMIN_UNLOCK, unlock),
  command(AUDIT_LIST, listAudit),
  command(AUDIT_EXPORT, exportAudit),
  command(DB_MIGRATE, migrateDatabase),
  command(EMAIL_ALLOW, allowDomain),
  command(EMAIL_DENY, denyDomain),
  command(EMAIL_LIST, listOverrides),
  command(EMAIL_REMOVE, removeOverride),
  command(IP_ALLOW, allowIp),
  command(IP_DENY, denyIp),
  command(IP_LIST, listIpOverrides),
  command(IP_REMOVE, removeIpOverride),
  command(POLICY_LIST, listPolicy),
  command(POLICY_ADD, addRule),
  command(POLICY_ENFORCE, enforceRule),
  command(POLICY_SHADOW, shadowRule),
  command(POLICY_MOVE, moveRuleTo),
  command(POLICY_REMOVE, removeRuleById),
  command(POLICY_EXPORT, exportPolicy),
  command(POLICY_IMPORT, importPolicy),
  command(VERSION, version),
];

/** Every command's table, in the order `riskcheck --help` lists them (the manual's generated parts read it too). */
export const COMMAND_SPECS: readonly CommandSpec[] = COMMANDS.map((c) => c.spec);

interface Group {
  readonly name: string;
  readonly commands: readonly Command[];
}

type Resolved =
  | { readonly command: Command; readonly args: string[] }
  | { readonly problem: string; readonly group?: Group };

/** The command the first words name: "serve", or a group and its subcommand, "keys create". */
function resolve(words: string[]): Resolved {
  const [first, second] = words;
  const single = COMMANDS.find((c) => c.spec.name === first);
  if (single) return { command: single, args: words.slice(1) };
  const group = COMMANDS.filter((c) => c.spec.name.startsWith(`${first} `));
  if (group.length === 0) return { problem: first === undefined ? "no command given" : `unknown command "${first}"` };
  const sub = group.find((c) => c.spec.name === `${first} ${second}`);
  if (sub) return { command: sub, args: words.slice(2) };
  const names = group.map((c) => c.spec.name.slice(first.length + 1)).join(", ");
  const problem =
    second === undefined || second.startsWith("-")
      ? `${first} needs a subcommand: ${names}`
      : `unknown ${first} subcommand "${second}"`;
  return { problem, group: { name: first, commands: group } };
}

/** One line naming the problem, one pointing at the help. */
function usageError(problem: string, helpFor?: string): number {
  console.error(`riskcheck: ${problem}\nRun '${selfCommand()} ${helpFor ? `${helpFor} ` : ""}--help' for usage.`);
  return 2;
}

/** `riskcheck help [COMMAND...]`; `help --help` is the command list, which tells how help works. */
function help(args: string[]): number {
  const words = args.filter((w) => w !== "--help" && w !== "-h");
  if (words.length === 0) {
    console.log(commandList(COMMAND_SPECS));
    return 0;
  }
  const found = resolve(words);
  if ("command" in found && found.args.length === 0) console.log(commandHelp(found.command.spec));
  else if ("group" in found && found.group && words.length === 1)
    console.log(
      commandList(
        found.group.commands.map((c) => c.spec),
        found.group.name,
      ),
    );
  else return usageError(`no help for "${words.join(" ")}"`);
  return 0;
}

export async function main(argv: string[], context: RunContext): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "help") return help(rest);
  if (first === "--help" || first === "-h") return help([]);
  const found = resolve(first === "--version" ? ["version", ...rest] : argv);
  if ("problem" in found) {
    if (found.group && wantsHelp(argv.slice(1, 2))) return help([found.group.name]);
    return usageError(found.problem, found.group?.name);
  }
  const { spec } = found.command;
  if (wantsHelp(found.args)) {
    console.log(commandHelp(spec));
    return 0;
  }
  try {
    return await found.command.run(found.args, context);
  } catch (err) {
    if (err instanceof UsageError) return usageError(err.message, spec.name);
    console.error(`riskcheck: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
