import type { CommandSpec, FlagSpec } from "./command-spec.ts";
import { DATABASE_URL, DATA_DIR, DB, JSON_OUTPUT, settingVariables } from "./commands.ts";
import { AUTHOR, REASON, UNTIL } from "./email-commands.ts";

/** The tables of `riskcheck ip allow|deny|list|remove` (ip.ts runs them). */

const TARGET = {
  name: "TARGET",
  description: "An address (81.2.69.142), a CIDR range (81.2.69.0/24, 2a00:1450::/32) or a network (AS15169)",
};
const SETTLES =
  "A running server (every instance, with PostgreSQL) applies it within 3 s, without an update. It beats every " +
  "feed, report and list; where lines overlap, the address's own line decides, else the longest range covering it, " +
  "else its network's (AS) line, else a range broader than /8 (/16 for IPv6), which only --force stores. A range " +
  "of special-purpose space only (private, loopback, documentation) is refused: the check answers such addresses " +
  "before any line.";
const FORCE = {
  name: "force",
  type: "boolean",
  description:
    "Accept a range broader than /8 (/16 for IPv6): a default for that space, which any narrower line and AS line " +
    "beat; recorded as forced",
} as const satisfies FlagSpec;

export const IP_ALLOW = {
  name: "ip allow",
  summary: "Never report TARGET as risky: its verdict is ok, whatever the feeds and reports say",
  details: [SETTLES],
  operand: TARGET,
  flags: [REASON, UNTIL, AUTHOR, FORCE, DATA_DIR, DB, DATABASE_URL],
  environment: settingVariables("ip allow"),
  examples: [
    'riskcheck ip allow 81.2.69.142 --reason "partner\'s API server, ticket 4711"',
    'riskcheck ip allow 81.2.69.0/24 --reason "our Bracknell office" --until 2027-06-30',
    'riskcheck ip allow AS64500 --reason "mobile carrier gateway, false positives since 2026-10"',
  ],
} as const satisfies CommandSpec;

export const IP_DENY = {
  name: "ip deny",
  summary: "Always report TARGET as risky: its verdict is bad",
  details: [SETTLES],
  operand: TARGET,
  flags: [REASON, UNTIL, AUTHOR, FORCE, DATA_DIR, DB, DATABASE_URL],
  environment: settingVariables("ip deny"),
  examples: ['riskcheck ip deny 185.220.101.0/24 --reason "card-testing wave of 2026-11-20" --until 2026-12-31'],
} as const satisfies CommandSpec;

export const IP_LIST = {
  name: "ip list",
  summary: "List the IP override lines with reason, author and expiry; expired lines are marked",
  details: [
    "Lines of data/ip/allowlist.txt apply too, as allow lines; they are not listed here (see the dashboard's IP overrides page).",
  ],
  flags: [JSON_OUTPUT, DATA_DIR, DB, DATABASE_URL],
  examples: ["riskcheck ip list", "riskcheck ip list --json"],
} as const satisfies CommandSpec;

export const IP_REMOVE = {
  name: "ip remove",
  summary: "Remove the override line of TARGET; the feeds decide again",
  operand: { name: "TARGET", description: "The address, range or network of the line, as listed" },
  flags: [DATA_DIR, DB, DATABASE_URL],
  examples: ["riskcheck ip remove 81.2.69.142", "riskcheck ip remove AS64500"],
} as const satisfies CommandSpec;
