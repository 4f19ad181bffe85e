import type { CommandSpec, FlagSpec } from "./command-spec.ts";

const HELP_FLAG: FlagSpec = { name: "help", type: "boolean", description: "Show this help and exit" };

function synopsis(c: CommandSpec): string {
  const flags = c.flags.map((f) => {
    const text = f.value ? `--${f.name} ${f.value}` : `--${f.name}`;
    return f.required ? text : `[${text}]`;
  });
  return [
    "riskcheck",
    c.name,
    ...flags,
    ...(c.operand ? [c.operand.optional ? `[${c.operand.name}]` : c.operand.name] : []),
  ].join(" ");
}

/** Synopsis, what it does, one line per flag with its variable and default, settings from the environment, examples. */
export function commandHelp(c: CommandSpec): string {
  const options = [...c.flags, HELP_FLAG].map((f): [string, string] => {
    const notes = [
      f.env ? `[env: ${f.env}]` : "",
      f.default ? `[default: ${f.default}]` : "",
      f.required ? "[required]" : "",
    ].filter(Boolean);
    return [
      `${f.name === "help" ? "-h, " : ""}--${f.name}${f.value ? ` ${f.value}` : ""}`,
      [f.description, ...notes].join(" "),
    ];
  });
  const sections = [`usage: ${synopsis(c)}`, [c.summary, ...(c.details ?? [])].join("\n")];
  if (c.operand) sections.push(`Arguments:\n${table([[c.operand.name, c.operand.description]])}`);
  sections.push(`Options:\n${table(options)}`);
  if (c.environment?.length)
    sections.push(
      `Environment:\n${table(c.environment.map((v) => [v.name, `${v.description} [default: ${v.default}]`]))}`,
    );
  sections.push(`${c.examples.length > 1 ? "Examples" : "Example"}:\n${c.examples.map((e) => `  ${e}`).join("\n")}`);
  return sections.join("\n\n");
}

/** The commands in one list, for `riskcheck --help` or a group such as `riskcheck keys --help`. */
export function commandList(commands: readonly CommandSpec[], group = ""): string {
  const usage = group ? `usage: riskcheck ${group} SUBCOMMAND [OPTIONS]` : "usage: riskcheck COMMAND [OPTIONS]";
  const hint = group
    ? `'riskcheck ${group} SUBCOMMAND --help'`
    : "'riskcheck help COMMAND' or 'riskcheck COMMAND --help'";
  return [
    usage,
    `${group ? "Subcommands" : "Commands"}:\n${table(commands.map((c) => [c.name, c.summary]))}`,
    `Run ${hint} for its options. Flags win over environment variables, which win over the defaults.`,
  ].join("\n\n");
}

function table(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`).join("\n");
}
