import type { CommandSpec, FlagSpec } from "./command-spec.ts";
import { DATABASE_URL, DATA_DIR, DB, JSON_OUTPUT, settingVariables } from "./commands.ts";

/** The tables of `riskcheck email allow|deny|list|remove` (email.ts runs them); ip and policy share their flags. */

export const REASON = {
  name: "reason",
  type: "string",
  value: "TEXT",
  required: true,
  description: "Why: shown in ?explain=1 answers and the dashboard, to defend the line",
} as const satisfies FlagSpec;
export const UNTIL = {
  name: "until",
  type: "string",
  value: "DATE",
  default: "until removed",
  description: "The line stops applying after this day (YYYY-MM-DD, UTC, the day included) or instant (ISO 8601)",
} as const satisfies FlagSpec;
const FORCE = {
  name: "force",
  type: "boolean",
  description:
    "Accept a public suffix (co.uk, com, github.io): the line then covers every domain registered under it; recorded as forced",
} as const satisfies FlagSpec;
export const AUTHOR = {
  name: "author",
  type: "string",
  value: "NAME",
  default: "the user running the command",
  description: "Who is answerable for the line",
} as const satisfies FlagSpec;
const DOMAIN = { name: "DOMAIN", description: "The domain; the line covers its subdomains too" };
const SETTLES =
  "A running server (every instance, with PostgreSQL) applies it within 10 s, without an update; it beats every " +
  "list, the allowlist files and disputed names held back by update.";

export const EMAIL_ALLOW = {
  name: "email allow",
  summary: "Never report DOMAIN (and its subdomains) as disposable, whatever the lists say",
  details: [SETTLES],
  operand: DOMAIN,
  flags: [REASON, UNTIL, AUTHOR, FORCE, DATA_DIR, DB, DATABASE_URL],
  environment: settingVariables("email allow"),
  examples: [
    'riskcheck email allow example-corp.com --reason "our own staff domain; listed by one list since 2026-08"',
    'riskcheck email allow shop.example --reason "ticket 4711" --until 2027-01-31',
  ],
} as const satisfies CommandSpec;

export const EMAIL_DENY = {
  name: "email deny",
  summary: "Always report DOMAIN (and its subdomains) as disposable",
  details: [SETTLES],
  operand: DOMAIN,
  flags: [REASON, UNTIL, AUTHOR, FORCE, DATA_DIR, DB, DATABASE_URL],
  environment: settingVariables("email deny"),
  examples: ['riskcheck email deny fresh-throwaway.example --reason "sign-up wave of 2026-11-20, temporary inboxes"'],
} as const satisfies CommandSpec;

export const EMAIL_LIST = {
  name: "email list",
  summary: "List the override lines with reason, author and expiry; expired lines are marked",
  flags: [JSON_OUTPUT, DATA_DIR, DB, DATABASE_URL],
  examples: ["riskcheck email list", "riskcheck email list --json"],
} as const satisfies CommandSpec;

export const EMAIL_REMOVE = {
  name: "email remove",
  summary: "Remove the override line of DOMAIN; the lists decide again",
  operand: { name: "DOMAIN", description: "The domain of the line" },
  flags: [DATA_DIR, DB, DATABASE_URL],
  examples: ["riskcheck email remove example-corp.com"],
} as const satisfies CommandSpec;
