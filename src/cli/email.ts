import { currentUser } from "../audit/actors.ts";
import { loadConfig } from "../app/config.ts";
import { UsageError } from "../app/usage-error.ts";
import { hint } from "../app/self-command.ts";
import {
  OverrideError,
  type OverrideLine,
  activeOverrides,
  overrideLine,
  publicSuffixForced,
} from "../email/overrides.ts";
import { normaliseDomain } from "../email/domain-name.ts";
import type { CommandSpec, FlagSpec, ParsedCommandLine } from "./command-spec.ts";
import { DATABASE_URL, DATA_DIR, DB, JSON_OUTPUT, settingVariables } from "./commands.ts";
import { withExistingStores, withStoresMadeIfNeeded } from "./database.ts";
import { printTable } from "./table.ts";
import { untilText } from "../time/calendar-date.ts";

/** `riskcheck email allow|deny|list|remove`: the operator's override lines for email domains. */

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

const put =
  (action: "allow" | "deny") =>
  async ({ values, operand }: ParsedCommandLine<typeof EMAIL_ALLOW | typeof EMAIL_DENY>): Promise<number> => {
    let line: OverrideLine;
    try {
      line = overrideLine(
        {
          domain: operand,
          action,
          reason: values.reason,
          author: values.author ?? currentUser(),
          until: values.until ?? null,
          force: values.force,
        },
        new Date(),
      );
    } catch (err) {
      if (err instanceof OverrideError) throw new UsageError(err.message);
      throw err;
    }
    const config = loadConfig(values, process.env);
    const { changed } = await withStoresMadeIfNeeded(config, values, ({ emailOverrides }) =>
      emailOverrides.put(line, values.force ? publicSuffixForced(line.domain) : null),
    );
    const until = line.until ? ` until ${untilText(line.until)}` : "";
    console.log(
      `${line.domain} and its subdomains are ${action === "allow" ? "never" : "always"} disposable${until} ` +
        `(${line.reason}; by ${line.author}). ` +
        (changed ? "Running servers apply it within 10 s." : "The line was there already as it is: nothing changed."),
    );
    return 0;
  };

export const allowDomain = put("allow");
export const denyDomain = put("deny");

export async function listOverrides({ values }: ParsedCommandLine<typeof EMAIL_LIST>): Promise<number> {
  const config = loadConfig(values, process.env);
  const lines = await withExistingStores(config, values, ({ emailOverrides }) => emailOverrides.list());
  const active = activeOverrides(lines, Date.now());
  if (values.json) {
    console.log(
      JSON.stringify(
        lines.map((l) => ({ ...l, active: active.has(l.domain) })),
        null,
        2,
      ),
    );
    return 0;
  }
  if (lines.length === 0) {
    console.log(`No override lines. Add one with: ${hint(config, 'email allow DOMAIN --reason "why"')}`);
    return 0;
  }
  printTable([
    ["DOMAIN", "ACTION", "UNTIL", "AUTHOR", "ADDED", "REASON"],
    ...lines.map((l) => [
      l.domain,
      l.action,
      l.until === null ? "-" : active.has(l.domain) ? untilText(l.until) : `expired ${untilText(l.until)}`,
      l.author,
      l.created.slice(0, 10),
      l.reason,
    ]),
  ]);
  return 0;
}

export async function removeOverride({ values, operand }: ParsedCommandLine<typeof EMAIL_REMOVE>): Promise<number> {
  const domain = normaliseDomain(operand.trim());
  if (domain === null) throw new UsageError(`"${operand}" is not a domain name`);
  const config = loadConfig(values, process.env);
  const removed = await withExistingStores(config, values, ({ emailOverrides }) => emailOverrides.remove(domain));
  if (!removed) throw new UsageError(`no override line for ${domain}; see riskcheck email list`);
  console.log(`Removed the line for ${domain}; the lists decide again within 10 s.`);
  return 0;
}
