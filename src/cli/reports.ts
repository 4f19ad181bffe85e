import { loadConfig } from "../app/config.ts";
import { UsageError } from "../app/usage-error.ts";
import { escapeControlCharacters } from "../text/control-characters.ts";
import { parseIpAddress } from "../ip/address/parse.ts";
import type { StoredReport } from "../reports/report.ts";
import { reportsCsv } from "../reports/reports-csv.ts";
import type { ParsedCommandLine } from "./command-spec.ts";
import type { REPORTS_DELETE, REPORTS_EXPORT, REPORTS_LIST } from "./reports-commands.ts";
import { withExistingStores } from "./database.ts";
import { parseDateText, sinceMs } from "../time/calendar-date.ts";
import type { AuditRecorder } from "../audit/audit-trail.ts";
import type { StoreWrites } from "../stores/stores.ts";
import { reportsTarget } from "../audit/reports-target.ts";

export async function listReports({ values }: ParsedCommandLine<typeof REPORTS_LIST>): Promise<number> {
  const filter = {
    ip: values.ip === undefined ? undefined : address(values.ip),
    sinceMs: values.since === undefined ? undefined : date(values.since),
  };
  const reports = await withExistingStores(loadConfig(values, process.env), values, (stores) =>
    stores.reports.list(filter),
  );
  if (values.json) console.log(JSON.stringify(reports.map(reportJson), null, 2));
  else if (reports.length === 0) console.log("No reports.");
  else
    for (const r of reports) {
      const comment = r.comment ? `  "${escapeControlCharacters(r.comment)}"` : "";
      const key = `${escapeControlCharacters(r.keyName)} (${r.keyId})`;
      console.log(`${new Date(r.reportedAtMs).toISOString()}  ${r.ip}  ${r.category}  ${key}${comment}`);
    }
  return 0;
}

export async function exportReports({ values }: ParsedCommandLine<typeof REPORTS_EXPORT>): Promise<number> {
  const sinceMs = date(values.since);
  const reports = await withExistingStores(loadConfig(values, process.env), values, (stores) =>
    stores.reports.list({ sinceMs }),
  );
  process.stdout.write(reportsCsv(reports));
  return 0;
}

export async function deleteReports({ values }: ParsedCommandLine<typeof REPORTS_DELETE>): Promise<number> {
  if (values.ip === undefined && values.key === undefined)
    throw new UsageError("say which reports go: --ip IP, --key NAME, or both");
  const ip = values.ip === undefined ? undefined : address(values.ip);
  const deleted = await withExistingStores(loadConfig(values, process.env), values, async (stores, audit) => {
    if (values.key === undefined) return deletedReports(audit, ip, null, (tx) => tx.reports.delete({ ip }, Date.now()));
    const keys = (await stores.keys.list()).filter((k) => k.id === values.key || k.name === values.key);
    if (keys.length === 0)
      throw new UsageError(`--key: no key has the id or name "${values.key}"; see "riskcheck keys list"`);
    let n = 0;
    for (const key of keys)
      n += await deletedReports(audit, ip, key, (tx) => tx.reports.delete({ ip, keyId: key.id }, Date.now()));
    return n;
  });
  const whose = [ip === undefined ? "" : ` of ${ip}`, values.key === undefined ? "" : ` by ${values.key}`].join("");
  console.log(`Deleted ${deleted} report(s)${whose}; running servers count without them within 10 s.`);
  return 0;
}

/** One deletion, on the record with how many reports went. */
function deletedReports(
  audit: AuditRecorder<StoreWrites>,
  ip: string | undefined,
  key: { id: string; name: string } | null,
  work: (tx: StoreWrites) => Promise<number>,
): Promise<number> {
  return audit.act("reports.deleted", reportsTarget(ip ?? null, key), work, (n) => ({ detail: `${n} report(s)` }));
}

/** The canonical spelling, as the reports are stored. */
function address(text: string): string {
  const ip = parseIpAddress(text);
  if (ip === null) throw new UsageError(`--ip: "${text}" is not an IP address`);
  return ip.text;
}

function date(text: string): number {
  const date = parseDateText(text);
  if (date === null)
    throw new UsageError(
      `--since: "${text}" is not a date such as 2026-11-01 (a day that exists) or 2026-11-01T12:00:00Z`,
    );
  return sinceMs(date);
}

function reportJson(r: StoredReport) {
  return {
    reported_at: new Date(r.reportedAtMs).toISOString(),
    ip: r.ip,
    category: r.category,
    key_id: r.keyId,
    key_name: r.keyName,
    comment: r.comment,
  };
}
