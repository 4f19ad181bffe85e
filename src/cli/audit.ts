import { loadConfig } from "../app/config.ts";
import { UsageError } from "../app/usage-error.ts";
import type { AuditEntry } from "../audit/audit-event.ts";
import { changeText } from "../audit/change-text.ts";
import { auditLine } from "../audit/audit-lines.ts";
import { type AuditFilter, actionFamilies, isActionFilter } from "../audit/audit-log.ts";
import { escapeControlCharacters } from "../text/control-characters.ts";
import { parseDateText, sinceMs } from "../time/calendar-date.ts";
import type { ParsedCommandLine } from "./command-spec.ts";
import type { AUDIT_EXPORT, AUDIT_LIST } from "./audit-commands.ts";
import { withExistingStores } from "./database.ts";

/** Events read from the database at a time by export. */
const EXPORT_PAGE = 1_000;

function filterOf(values: { since?: string; action?: string; target?: string }): AuditFilter {
  if (values.action !== undefined && !isActionFilter(values.action))
    throw new UsageError(
      `--action: "${values.action}" is no action; give one such as key.revoked, or a family: ${actionFamilies().join(", ")}`,
    );
  if (values.target === "") throw new UsageError("--target needs some text to look for");
  return {
    since: values.since === undefined ? undefined : since(values.since),
    action: values.action,
    target: values.target,
  };
}

function since(text: string): string {
  const date = parseDateText(text);
  if (date === null)
    throw new UsageError(
      `--since: "${text}" is not a date such as 2026-11-01 (a day that exists) or 2026-11-01T12:00:00Z`,
    );
  return new Date(sinceMs(date)).toISOString();
}

function eventText(e: AuditEntry): string {
  const outcome = e.outcome === "failed" ? "  FAILED" : "";
  const rest = [changeText(e.change), e.detail ?? ""].filter((part) => part !== "").join("; ");
  return escapeControlCharacters(
    `${e.at}  ${e.action}${outcome}  ${e.target}  by ${e.actor} (${e.channel})${rest ? `  ${rest}` : ""}`,
  );
}

export async function listAudit({ values }: ParsedCommandLine<typeof AUDIT_LIST>): Promise<number> {
  const filter = filterOf(values);
  const limitText = values.limit ?? "100";
  const limit = Number(limitText);
  if (!/^\d{1,6}$/.test(limitText) || limit < 1 || limit > 100_000)
    throw new UsageError(`--limit: "${limitText}" is not a whole number from 1 to 100000`);
  const events = await withExistingStores(loadConfig(values, process.env), values, (stores) =>
    stores.audit.read(filter, { order: "newest_first", limit }),
  );
  if (values.json) console.log(JSON.stringify(events, null, 2));
  else if (events.length === 0) console.log("No events.");
  else for (const e of events) console.log(eventText(e));
  return 0;
}

export async function exportAudit({ values }: ParsedCommandLine<typeof AUDIT_EXPORT>): Promise<number> {
  const filter = filterOf(values);
  await withExistingStores(loadConfig(values, process.env), values, async (stores) => {
    let after: number | undefined;
    for (;;) {
      const events = await stores.audit.read(filter, { order: "oldest_first", after, limit: EXPORT_PAGE });
      if (events.length === 0) return;
      process.stdout.write(events.map(auditLine).join(""));
      after = events[events.length - 1].id;
    }
  });
  return 0;
}
