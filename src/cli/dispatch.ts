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
import { REPORTS_DELETE, REPORTS_EXPORT, REPORTS_LIST } from "./reports-commands.ts";
import { SCAN } from "./scan-command.ts";
import { UsageError } from "../app/usage-error.ts";
import { selfCommand } from "../app/self-command.ts";
import { EMAIL_ALLOW, EMAIL_DENY, EMAIL_LIST, EMAIL_REMOVE } from "./email-commands.ts";
import { IP_ALLOW, IP_DENY, IP_LIST, IP_REMOVE } from "./ip-commands.ts";
import {
  POLICY_ADD,
  POLICY_ENFORCE,
  POLICY_EXPORT,
  POLICY_IMPORT,
  POLICY_LIST,
  POLICY_MOVE,
  POLICY_REMOVE,
  POLICY_SHADOW,
} from "./policy-commands.ts";
import { AUDIT_EXPORT, AUDIT_LIST } from "./audit-commands.ts";
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
  // A command's code is imported when it runs: --help, a usage error or any one command loads the tables and that
  // command's module alone (serve, update and scan: Elysia and the dataset code; the others: the stores).
  command(SERVE, async (parsed, context) => (await import("./serve.ts")).serve(parsed, context)),
  command(UPDATE, async (parsed) => (await import("./update.ts")).update(parsed)),
  command(SCAN, async (parsed) => (await import("./scan.ts")).runScan(parsed)),
  command(KEYS_CREATE, async (parsed) => (await import("./keys.ts")).createKey(parsed)),
  command(KEYS_LIST, async (parsed) => (await import("./keys.ts")).listKeys(parsed)),
  command(KEYS_REVOKE, async (parsed) => (await import("./keys.ts")).revokeKey(parsed)),
  command(KEYS_UPDATE, async (parsed) => (await import("./keys.ts")).updateKey(parsed)),
  command(KEYS_ROTATE, async (parsed) => (await import("./keys.ts")).rotateKey(parsed)),
  command(KEYS_USAGE, async (parsed) => (await import("./keys.ts")).keyUsage(parsed)),
  command(REPORTS_LIST, async (parsed) => (await import("./reports.ts")).listReports(parsed)),
  command(REPORTS_EXPORT, async (parsed) => (await import("./reports.ts")).exportReports(parsed)),
  command(REPORTS_DELETE, async (parsed) => (await import("./reports.ts")).deleteReports(parsed)),
  command(ADMIN_SET_PASSWORD, async (parsed) => (await import("./admin.ts")).setPassword(parsed)),
  command(ADMIN_UNLOCK, async (parsed) => (await import("./admin.ts")).unlock(parsed)),
  command(AUDIT_LIST, async (parsed) => (await import("./audit.ts")).listAudit(parsed)),
  command(AUDIT_EXPORT, async (parsed) => (await import("./audit.ts")).exportAudit(parsed)),
  command(DB_MIGRATE, async (parsed) => (await import("./db.ts")).migrateDatabase(parsed)),
  command(EMAIL_ALLOW, async (parsed) => (await import("./email.ts")).allowDomain(parsed)),
  command(EMAIL_DENY, async (parsed) => (await import("./email.ts")).denyDomain(parsed)),
  command(EMAIL_LIST, async (parsed) => (await import("./email.ts")).listOverrides(parsed)),
  command(EMAIL_REMOVE, async (parsed) => (await import("./email.ts")).removeOverride(parsed)),
  command(IP_ALLOW, async (parsed) => (await import("./ip.ts")).allowIp(parsed)),
  command(IP_DENY, async (parsed) => (await import("./ip.ts")).denyIp(parsed)),
  command(IP_LIST, async (parsed) => (await import("./ip.ts")).listIpOverrides(parsed)),
  command(IP_REMOVE, async (parsed) => (await import("./ip.ts")).removeIpOverride(parsed)),
  command(POLICY_LIST, async (parsed) => (await import("./policy.ts")).listPolicy(parsed)),
  command(POLICY_ADD, async (parsed) => (await import("./policy.ts")).addRule(parsed)),
  command(POLICY_ENFORCE, async (parsed) => (await import("./policy.ts")).enforceRule(parsed)),
  command(POLICY_SHADOW, async (parsed) => (await import("./policy.ts")).shadowRule(parsed)),
  command(POLICY_MOVE, async (parsed) => (await import("./policy.ts")).moveRuleTo(parsed)),
  command(POLICY_REMOVE, async (parsed) => (await import("./policy.ts")).removeRuleById(parsed)),
  command(POLICY_EXPORT, async (parsed) => (await import("./policy.ts")).exportPolicy(parsed)),
  command(POLICY_IMPORT, async (parsed) => (await import("./policy.ts")).importPolicy(parsed)),
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
