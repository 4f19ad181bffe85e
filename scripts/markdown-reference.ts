import type { CommandSpec, FlagSpec } from "../src/cli/command-spec.ts";

/**
 * The manual's parts that the command tables already say: the README's synopsis and the
 * configuration page's tables (`bun run docs` writes them; a test fails when they drift).
 */

/** The flags every command that opens the database takes, shown once as DATABASE in the synopsis. */
const DATABASE_FLAGS = ["data-dir", "db", "database-url"];
const DATABASE = "[DATABASE]";

/** One line per command, aligned; the database's three flags as DATABASE, explained below. */
export function synopsisBlock(commands: readonly CommandSpec[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `riskcheck ${c.name.padEnd(width)}  ${synopsisWords(c).join(" ")}`.trimEnd());
  return [
    ...lines,
    `riskcheck ${"help".padEnd(width)}  [COMMAND]   (or: riskcheck COMMAND --help)`,
    "",
    "DATABASE is [--data-dir DIR] [--db FILE] (SQLite, the default) or --database-url URL (PostgreSQL)",
  ].join("\n");
}

function synopsisWords(c: CommandSpec): string[] {
  const names = c.flags.map((f) => f.name);
  const opensDatabase = DATABASE_FLAGS.every((n) => names.includes(n));
  const words: string[] = [];
  for (const f of c.flags) {
    if (opensDatabase && DATABASE_FLAGS.includes(f.name)) {
      if (!words.includes(DATABASE)) words.push(DATABASE);
      continue;
    }
    words.push(f.required ? flagText(f) : `[${flagText(f)}]`);
  }
  if (c.operand) words.push(c.operand.optional ? `[${c.operand.name}]` : c.operand.name);
  return words;
}

interface Setting {
  readonly variable: string;
  readonly flag: string;
  readonly default: string;
  readonly description: string;
  readonly commands: string[];
}

/** Every setting with an environment variable, in the order the commands first name it. */
export function settings(commands: readonly CommandSpec[]): Setting[] {
  const byVariable = new Map<string, Setting>();
  const add = (command: string, variable: string, flag: string, fallback: string, description: string) => {
    const known = byVariable.get(variable);
    if (!known)
      return void byVariable.set(variable, { variable, flag, default: fallback, description, commands: [command] });
    if (known.flag !== flag || known.default !== fallback || known.description !== description) {
      throw new Error(
        `${variable} is described two ways, by ${known.commands[0]} and ${command}: give both the same table entry`,
      );
    }
    known.commands.push(command);
  };
  for (const c of commands) {
    for (const f of c.flags) if (f.env) add(c.name, f.env, `--${f.name}`, f.default ?? "", f.description);
    for (const v of c.environment ?? []) add(c.name, v.name, "", v.default, v.description);
  }
  return [...byVariable.values()];
}

function settingsTable(commands: readonly CommandSpec[]): string {
  const all = commands.map((c) => c.name);
  const rows = settings(commands).map((s) => [
    code(s.variable),
    s.flag ? code(s.flag) : "",
    value(s.default),
    readBy(s.commands, all),
    s.description,
  ]);
  return table(["Variable", "Flag", "Default", "Read by", "Meaning"], rows);
}

/** Per command: its operand and flags, with variable and default. */
function commandOptions(commands: readonly CommandSpec[]): string {
  return commands
    .map((c) => {
      const rows: string[][] = [];
      if (c.operand)
        rows.push([c.operand.name + (c.operand.optional ? " (optional)" : ""), "", "", c.operand.description]);
      for (const f of c.flags)
        rows.push([
          code(flagText(f)) + (f.required ? " (required)" : ""),
          f.env ? code(f.env) : "",
          value(f.default ?? ""),
          f.description,
        ]);
      const heading = `### \`riskcheck ${c.name}\``;
      const body = rows.length ? table(["Option", "Variable", "Default", "Meaning"], rows) : "No options.";
      return `${heading}\n\n${c.summary}.\n\n${body}`;
    })
    .join("\n\n");
}

function flagText(f: FlagSpec): string {
  return f.value ? `--${f.name} ${f.value}` : `--${f.name}`;
}

function readBy(commands: string[], all: string[]): string {
  const missing = all.filter((c) => !commands.includes(c));
  if (missing.length > 0 && missing.length <= 2 && commands.length > missing.length)
    return `every command but ${missing.map(code).join(" and ")}`;
  return commands.map(code).join(", ");
}

function code(text: string): string {
  return `\`${text}\``;
}

/** A plain value in code; a description of one ("the server's …", "none") as text. */
function value(text: string): string {
  if (text === "") return "";
  if (text === "none") return "(none)";
  return /^[\w./:=,-]+$/.test(text) ? code(text) : text;
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`;
  return [line(header), `|${header.map(() => "---").join("|")}|`, ...rows.map(line)].join("\n");
}

/** The text between `<!-- generated: NAME -->` and `<!-- end: NAME -->`; null when the markers are missing. */
export function generatedRegion(document: string, name: string): string | null {
  const [start, end] = markers(name);
  const from = document.indexOf(start);
  const to = document.indexOf(end);
  if (from === -1 || to < from) return null;
  return document.slice(from + start.length, to);
}

export function replaceGeneratedRegion(document: string, name: string, content: string): string {
  const [start, end] = markers(name);
  const region = generatedRegion(document, name);
  if (region === null) throw new Error(`no ${start} … ${end} in the document`);
  const from = document.indexOf(start) + start.length;
  return document.slice(0, from) + content + document.slice(from + region.length);
}

function markers(name: string): [string, string] {
  return [
    `<!-- generated: ${name} (bun run docs; edit the command tables in src/cli/, not this) -->`,
    `<!-- end: ${name} -->`,
  ];
}

interface GeneratedRegion {
  readonly name: string;
  render(commands: readonly CommandSpec[]): string;
}

/** Where the manual holds generated text, and what goes there. */
export const GENERATED_DOCS: readonly { readonly file: string; readonly regions: readonly GeneratedRegion[] }[] = [
  { file: "README.md", regions: [{ name: "synopsis", render: (c) => `\n\`\`\`\n${synopsisBlock(c)}\n\`\`\`\n` }] },
  {
    file: "docs/configuration.md",
    regions: [
      { name: "settings", render: (c) => `\n${settingsTable(c)}\n` },
      { name: "command options", render: (c) => `\n${commandOptions(c)}\n` },
    ],
  },
];
