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
import type { ParsedCommandLine } from "./command-spec.ts";
import type { EMAIL_ALLOW, EMAIL_DENY, EMAIL_LIST, EMAIL_REMOVE } from "./email-commands.ts";
import { withExistingStores, withStoresMadeIfNeeded } from "./database.ts";
import { printTable } from "./table.ts";
import { untilText } from "../time/calendar-date.ts";

/** `riskcheck email allow|deny|list|remove`: the operator's override lines for email domains. */
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
