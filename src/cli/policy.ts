import { readFileSync } from "node:fs";
import { PolicyError, problemText } from "../assess/parse-policy.ts";
import {
  type PolicyEdit,
  PolicyBusy,
  RuleNotFound,
  moveRule,
  putRule,
  removeRule,
  replaceRules,
  setMode,
} from "../assess/policy-edits.ts";
import { type PolicyRule, isActive } from "../assess/policy-rule.ts";
import { CompiledPolicy } from "../assess/compiled-policy.ts";
import { currentUser } from "../audit/actors.ts";
import { auditedPolicy } from "../audit/audited-policy.ts";
import { type Config, loadConfig } from "../app/config.ts";
import { hint } from "../app/self-command.ts";
import { UsageError } from "../app/usage-error.ts";
import type { CommandSpec, FlagSpec, ParsedCommandLine } from "./command-spec.ts";
import { DATABASE_URL, DATA_DIR, DB, JSON_OUTPUT } from "./commands.ts";
import { withExistingStores, withStoresMadeIfNeeded } from "./database.ts";
import { AUTHOR } from "./email.ts";
import { printTable } from "./table.ts";

/** `riskcheck policy …`: the operator's assessment rules (docs/assess.md), in the database every instance reads. */

const SETTLES = "Running servers (every instance, with PostgreSQL) apply a change within 2 s, without a restart.";
const RULE_ID = { name: "ID", description: "The rule's id, as `riskcheck policy list` shows it" };
const RULE_AUTHOR = {
  ...AUTHOR,
  description: "Who is answerable for the rule (a file's rules keep their own)",
} as const;
const DATABASE = [DATA_DIR, DB, DATABASE_URL] as const;
const FILE = { name: "FILE", description: "A JSON file, or - for standard input" };
const SHADOW = {
  name: "shadow",
  type: "boolean",
  description: "Put every rule of the file in shadow: a candidate policy, counted but deciding nothing",
} as const satisfies FlagSpec;
const AT = {
  name: "at",
  type: "string",
  value: "N",
  default: "the end, or the place of the rule it replaces",
  description: "The rule's place in the order, from 1",
} as const satisfies FlagSpec;
const TO = { ...AT, name: "to", default: undefined, description: "The place to move the rule to, from 1" } as const;

export const POLICY_LIST = {
  name: "policy list",
  summary:
    "List the assessment rules in order, with mode, decision, expiry, author and reason; expired rules are marked",
  details: ["--json prints the policy's version, the revision and every rule as stored, with `active`."],
  flags: [JSON_OUTPUT, ...DATABASE],
  examples: ["riskcheck policy list", "riskcheck policy list --json"],
} as const satisfies CommandSpec;

export const POLICY_EXPORT = {
  name: "policy export",
  summary:
    'Print the rules as a rule set, {"rules": [...]}: for `policy import`, a backtest (`scan --policy`) or version control',
  flags: [...DATABASE],
  examples: ["riskcheck policy export > policy.json", "riskcheck scan signups.csv --policy policy.json"],
} as const satisfies CommandSpec;

export const POLICY_IMPORT = {
  name: "policy import",
  summary: "Replace every rule with the rule set in FILE, checked whole first",
  details: [
    'FILE holds {"rules": [...]} (docs/assess.md). A set that does not parse, names an unknown field or exceeds the ' +
      "limits is refused whole, naming the rule and the field, and nothing changes.",
    SETTLES,
  ],
  operand: FILE,
  flags: [SHADOW, RULE_AUTHOR, ...DATABASE],
  examples: ["riskcheck policy import policy.json", "riskcheck policy import candidate.json --shadow"],
} as const satisfies CommandSpec;

export const POLICY_ADD = {
  name: "policy add",
  summary: "Add the rule in FILE (one rule, as JSON), or replace the rule with its id",
  details: [
    "A rule without a mode is added in shadow: counted, deciding nothing, until `riskcheck policy enforce ID`.",
    SETTLES,
  ],
  operand: FILE,
  flags: [AT, RULE_AUTHOR, ...DATABASE],
  examples: [
    "riskcheck policy add tor-payments.json",
    `echo '{"id":"office","conditions":{"any":[{"field":"ip.asn","op":"in","value":["AS64500"]}]},` +
      `"decision":"allow","reason":"our office","mode":"enforce"}' | riskcheck policy add - --at 1`,
  ],
} as const satisfies CommandSpec;

export const POLICY_ENFORCE = {
  name: "policy enforce",
  summary: "Let the rule decide: switch it from shadow to enforce, nothing else of it changes",
  details: [SETTLES],
  operand: RULE_ID,
  flags: [...DATABASE],
  examples: ["riskcheck policy enforce tor-payments"],
} as const satisfies CommandSpec;

export const POLICY_SHADOW = {
  name: "policy shadow",
  summary: "Put the rule in shadow: still counted, never deciding",
  details: [SETTLES],
  operand: RULE_ID,
  flags: [...DATABASE],
  examples: ["riskcheck policy shadow tor-payments"],
} as const satisfies CommandSpec;

export const POLICY_MOVE = {
  name: "policy move",
  summary: "Move the rule to another place in the order",
  details: ["The first enforcing rule that matches decides: a rule's place matters.", SETTLES],
  operand: RULE_ID,
  flags: [TO, ...DATABASE],
  examples: ["riskcheck policy move office --to 1"],
} as const satisfies CommandSpec;

export const POLICY_REMOVE = {
  name: "policy remove",
  summary: "Remove the rule",
  details: [SETTLES],
  operand: RULE_ID,
  flags: [...DATABASE],
  examples: ["riskcheck policy remove tor-payments"],
} as const satisfies CommandSpec;

/** A refused set or rule, or an edit that met no rule, is the user's to fix: a usage error naming why. */
async function edited(config: Config, values: object, edit: () => PolicyEdit, make = false) {
  try {
    const change = edit();
    const run = make ? withStoresMadeIfNeeded : withExistingStores;
    return await run(config, values, (stores, audit) => auditedPolicy(stores.policy, audit).apply(change));
  } catch (err) {
    if (err instanceof PolicyError)
      throw new UsageError(`refused, nothing changed:\n${err.problems.map((p) => `  ${problemText(p)}`).join("\n")}`);
    if (err instanceof RuleNotFound) throw new UsageError(`${err.message}; see ${hint(config, "policy list")}`);
    if (err instanceof PolicyBusy) throw new Error(err.message);
    throw err;
  }
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`${file}: ${code === "ENOENT" ? "no such file" : (err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file === "-" ? "standard input" : file}: not JSON: ${(err as Error).message}`);
  }
}

function place(text: string | undefined, flag: string): number | null {
  if (text === undefined) return null;
  if (!/^[1-9]\d{0,3}$/.test(text)) throw new UsageError(`--${flag} ${text}: a place in the order, 1 or more`);
  return Number(text);
}

const mode = (r: PolicyRule) => (r.mode === "shadow" ? "shadow" : "enforce");
const describe = (r: PolicyRule, at: number) => `"${r.id}" (#${at}, ${mode(r)}, ${r.decision})`;

export async function listPolicy({ values }: ParsedCommandLine<typeof POLICY_LIST>): Promise<number> {
  const config = loadConfig(values, process.env);
  const { revision, rules } = await withExistingStores(config, values, ({ policy }) => policy.read());
  const nowMs = Date.now();
  const version = CompiledPolicy.inForce(rules, nowMs).version;
  if (values.json) {
    const listed = rules.map((r) => ({ ...r, active: isActive(r, nowMs) }));
    console.log(JSON.stringify({ policy: version, revision, rules: listed }, null, 2));
    return 0;
  }
  if (rules.length === 0) {
    console.log(
      `No rules: the default policy decides (${version}: challenge from a score of 50, block from 85). ` +
        `Add one with: ${hint(config, "policy add RULE.json")}`,
    );
    return 0;
  }
  console.log(`Policy ${version}, revision ${revision}; the first enforcing rule that matches decides.`);
  printTable([
    ["#", "ID", "MODE", "DECISION", "EXPIRES", "AUTHOR", "ADDED", "REASON"],
    ...rules.map((r, i) => [
      String(i + 1),
      r.id,
      mode(r),
      r.decision,
      isActive(r, nowMs) ? (r.expires ?? "-") : `expired ${r.expires}`,
      r.author,
      r.created.slice(0, 10),
      r.reason,
    ]),
  ]);
  return 0;
}

export async function exportPolicy({ values }: ParsedCommandLine<typeof POLICY_EXPORT>): Promise<number> {
  const config = loadConfig(values, process.env);
  const { rules } = await withExistingStores(config, values, ({ policy }) => policy.read());
  console.log(JSON.stringify({ rules }, null, 2));
  return 0;
}

export async function importPolicy({ values, operand }: ParsedCommandLine<typeof POLICY_IMPORT>): Promise<number> {
  const config = loadConfig(values, process.env);
  const input = readJson(operand);
  const defaults = { author: values.author ?? currentUser(), nowMs: Date.now() };
  const { before, after } = await edited(config, values, () => replaceRules(input, defaults, values.shadow), true);
  const shadows = after.filter((r) => r.mode === "shadow").length;
  console.log(
    `Replaced ${before.length} rules with ${after.length} (${after.length - shadows} enforcing, ${shadows} in shadow). ${SETTLES}`,
  );
  return 0;
}

export async function addRule({ values, operand }: ParsedCommandLine<typeof POLICY_ADD>): Promise<number> {
  const config = loadConfig(values, process.env);
  const input = readJson(operand);
  const at = place(values.at, "at");
  const defaults = { author: values.author ?? currentUser(), nowMs: Date.now() };
  let id = "";
  const { before, after } = await edited(
    config,
    values,
    () => {
      const edit = putRule(input, defaults, at);
      id = edit.target;
      return edit;
    },
    true,
  );
  const index = after.findIndex((r) => r.id === id);
  const rule = after[index];
  const replaced = before.some((r) => r.id === id) ? "Replaced" : "Added";
  const next = rule.mode === "shadow" ? ` It decides nothing until: ${hint(config, `policy enforce ${id}`)}` : "";
  console.log(`${replaced} rule ${describe(rule, index + 1)}. ${SETTLES}${next}`);
  return 0;
}

const switchTo =
  (to: "enforce" | "shadow") =>
  async ({ values, operand }: ParsedCommandLine<typeof POLICY_ENFORCE | typeof POLICY_SHADOW>): Promise<number> => {
    const config = loadConfig(values, process.env);
    const { before, after } = await edited(config, values, () => setMode(operand, to));
    const index = after.findIndex((r) => r.id === operand);
    const was = before[before.findIndex((r) => r.id === operand)];
    const what =
      was.mode === to
        ? `was in ${to} already`
        : to === "enforce"
          ? "now decides the assessments it matches"
          : "is in shadow: counted, deciding nothing";
    console.log(`Rule ${describe(after[index], index + 1)} ${what}. ${SETTLES}`);
    return 0;
  };

export const enforceRule = switchTo("enforce");
export const shadowRule = switchTo("shadow");

export async function moveRuleTo({ values, operand }: ParsedCommandLine<typeof POLICY_MOVE>): Promise<number> {
  const config = loadConfig(values, process.env);
  const to = place(values.to, "to");
  if (to === null) throw new UsageError("--to N: the place to move the rule to");
  const { after } = await edited(config, values, () => moveRule(operand, to));
  const index = after.findIndex((r) => r.id === operand);
  console.log(`Moved rule ${describe(after[index], index + 1)}. ${SETTLES}`);
  return 0;
}

export async function removeRuleById({ values, operand }: ParsedCommandLine<typeof POLICY_REMOVE>): Promise<number> {
  const config = loadConfig(values, process.env);
  const { after } = await edited(config, values, () => removeRule(operand));
  console.log(`Removed rule "${operand}"; ${after.length} rules left. ${SETTLES}`);
  return 0;
}
