import { loadConfig } from "../app/config.ts";
import { UsageError } from "../app/usage-error.ts";
import { hint } from "../app/self-command.ts";
import { OverrideError } from "../email/overrides.ts";
import {
  type IpOverrideLine,
  ipOverrideLine,
  ipOverrideTarget,
  isActive,
  rangeForced,
} from "../ip/overrides/ip-override.ts";
import type { CommandSpec, FlagSpec, ParsedCommandLine } from "./command-spec.ts";
import { DATABASE_URL, DATA_DIR, DB, JSON_OUTPUT, settingVariables } from "./commands.ts";
import { withExistingStores, withStoresMadeIfNeeded } from "./database.ts";
import { AUTHOR, REASON, UNTIL } from "./email.ts";
import { currentUser } from "../audit/actors.ts";
import { printTable } from "./table.ts";

/** `riskcheck ip allow|deny|list|remove`: the operator's override lines for addresses, ranges and networks. */

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

const usageErrors = <T>(make: () => T): T => {
  try {
    return make();
  } catch (err) {
    if (err instanceof OverrideError) throw new UsageError(err.message);
    throw err;
  }
};

const put =
  (action: "allow" | "deny") =>
  async ({ values, operand }: ParsedCommandLine<typeof IP_ALLOW | typeof IP_DENY>): Promise<number> => {
    const line = usageErrors(() =>
      ipOverrideLine(
        {
          target: operand,
          action,
          reason: values.reason,
          author: values.author ?? currentUser(),
          until: values.until ?? null,
          force: values.force,
        },
        new Date(),
      ),
    );
    const config = loadConfig(values, process.env);
    const { changed } = await withStoresMadeIfNeeded(config, values, ({ ipOverrides }) =>
      ipOverrides.put(line, values.force ? rangeForced(line.target) : null),
    );
    const until = line.until ? ` until ${line.until}` : "";
    console.log(
      `${line.target} is ${action === "allow" ? "never risky (ok)" : "always risky (bad)"}${until} ` +
        `(${line.reason}; by ${line.author}). ` +
        (changed ? "Running servers apply it within 3 s." : "The line was there already as it is: nothing changed."),
    );
    return 0;
  };

export const allowIp = put("allow");
export const denyIp = put("deny");

export async function listIpOverrides({ values }: ParsedCommandLine<typeof IP_LIST>): Promise<number> {
  const config = loadConfig(values, process.env);
  const lines = await withExistingStores(config, values, ({ ipOverrides }) => ipOverrides.list());
  const nowMs = Date.now();
  if (values.json) {
    console.log(
      JSON.stringify(
        lines.map((l) => ({ ...l, active: isActive(l, nowMs) })),
        null,
        2,
      ),
    );
    return 0;
  }
  if (lines.length === 0) {
    console.log(`No IP override lines. Add one with: ${hint(config, 'ip allow ADDRESS --reason "why"')}`);
    return 0;
  }
  printTable([
    ["TARGET", "ACTION", "UNTIL", "AUTHOR", "ADDED", "REASON"],
    ...lines.map((l: IpOverrideLine) => [
      l.target,
      l.action,
      isActive(l, nowMs) ? (l.until ?? "-") : `expired ${l.until}`,
      l.author,
      l.created.slice(0, 10),
      l.reason,
    ]),
  ]);
  return 0;
}

export async function removeIpOverride({ values, operand }: ParsedCommandLine<typeof IP_REMOVE>): Promise<number> {
  const { text } = usageErrors(() => ipOverrideTarget(operand));
  const config = loadConfig(values, process.env);
  const removed = await withExistingStores(config, values, ({ ipOverrides }) => ipOverrides.remove(text));
  if (!removed) throw new UsageError(`no IP override line for ${text}; see riskcheck ip list`);
  console.log(`Removed the line for ${text}; the feeds decide again within 3 s.`);
  return 0;
}
