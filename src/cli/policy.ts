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
import type { ParsedCommandLine } from "./command-spec.ts";
import {
  type POLICY_ADD,
  type POLICY_ENFORCE,
  type POLICY_EXPORT,
  type POLICY_IMPORT,
  type POLICY_LIST,
  type POLICY_MOVE,
  type POLICY_REMOVE,
  type POLICY_SHADOW,
  SETTLES,
} from "./policy-commands.ts";
import { withExistingStores, withStoresMadeIfNeeded } from "./database.ts";
import { printTable } from "./table.ts";

/** `riskcheck policy …`: the operator's assessment rules (docs/assess.md), in the database every instance reads. */

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
