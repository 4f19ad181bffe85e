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
import type { ParsedCommandLine } from "./command-spec.ts";
import type { IP_ALLOW, IP_DENY, IP_LIST, IP_REMOVE } from "./ip-commands.ts";
import { withExistingStores, withStoresMadeIfNeeded } from "./database.ts";
import { currentUser } from "../audit/actors.ts";
import { printTable } from "./table.ts";

/** `riskcheck ip allow|deny|list|remove`: the operator's override lines for addresses, ranges and networks. */

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
