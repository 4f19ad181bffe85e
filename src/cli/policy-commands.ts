import type { CommandSpec, FlagSpec } from "./command-spec.ts";
import { DATABASE_URL, DATA_DIR, DB, JSON_OUTPUT } from "./commands.ts";
import { AUTHOR } from "./email-commands.ts";

/** The tables of `riskcheck policy …` (policy.ts runs them). */

export const SETTLES =
  "Running servers (every instance, with PostgreSQL) apply a change within 2 s, without a restart.";
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
