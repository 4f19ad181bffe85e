import { existsSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import type { ParsedCommandLine } from "./command-spec.ts";
import { DEFAULT_MAX_SHRINK, type UPDATE } from "./commands.ts";
import { type Config, loadConfig } from "../app/config.ts";
import { UsageError } from "../app/usage-error.ts";
import { DATA_DIR_ORIGIN } from "../ip/dataset-error.ts";
import { progressLine } from "../datasets/update/fetch-source.ts";
import { describeGroup, groupProblems } from "../datasets/source-problems.ts";
import type { DisputedNames, ListMemory } from "../datasets/update/email-evidence.ts";
import { formatDuration } from "../time/duration.ts";
import { SourcesError } from "../datasets/update/sources.ts";
import { type UpdateReport, runUpdate } from "../datasets/update/update.ts";
import type { MailServersReport } from "../datasets/update/mail-servers.ts";
import { resolverMailDns } from "../dns/resolver-mail-dns.ts";
import { type VersionListing, currentVersion, listVersions, rollback, withUpdateLock } from "../datasets/versions.ts";
import { hint } from "../app/self-command.ts";
import { dataFiles } from "../datasets/data-layout.ts";
import { printTable } from "./table.ts";
import { embeddedPackages } from "../datasets/baseline/baseline.ts";
import { ensureDatasets } from "../datasets/baseline/install-baseline.ts";
import { type PackageFiles, nodeModulesPackages } from "../datasets/update/package-files.ts";
import { cliActor, serverActor } from "../audit/actors.ts";
import type { AuditAction } from "../audit/audit-event.ts";
import type { AuditDetails } from "../audit/audit-trail.ts";
import { databaseExists, withStores } from "./database.ts";
import { RUN_BY_SERVER_VARIABLE } from "../datasets/refresh-child.ts";

/**
 * Records what the update did, in the database of the same --data-dir (or --db, --database-url)
 * when there is one: a data directory nobody administers yet has no database, and gets none
 * for this. A failure to record is said, and changes nothing of the update's outcome.
 */
async function recordUpdate(config: Config, action: AuditAction, details: AuditDetails & { target: string }) {
  if (!databaseExists(config)) return;
  const actor = process.env[RUN_BY_SERVER_VARIABLE] === "1" ? serverActor("scheduled update") : cliActor();
  await withStores(config, (_, audit) => audit.record(action, details.target, details), actor).catch((err: Error) =>
    console.error(`riskcheck: could not record the update in the audit log: ${err.message}`),
  );
}

export async function update({ values }: ParsedCommandLine<typeof UPDATE>): Promise<number> {
  const config = loadConfig(values, process.env);
  if (values.rollback) {
    const { current, from, older } = await withUpdateLock(config.dataDir, () => rollback(config.dataDir));
    await recordUpdate(config, "update.rolled_back", {
      target: `dataset version ${current}`,
      change: { version: { before: from, after: current } },
    });
    const next = older ? "Roll back again to step further." : "It is the oldest version kept.";
    console.log(
      `Dataset version ${current} is current again (rolled back from ${from}); a running server switches within seconds. ${next}`,
    );
    return 0;
  }
  if (values.list) {
    printVersions(await listVersions(config.dataDir), config);
    return 0;
  }
  try {
    return await refresh(values, config);
  } catch (err) {
    if (!(err instanceof UsageError))
      await recordUpdate(config, "update.failed", {
        target: `datasets in ${resolvePath(config.dataDir)}`,
        outcome: "failed",
        detail: (err as Error).message,
      });
    // --json always prints a document: a caller (the server's refresh) reads why from it.
    if (!values.json) throw err;
    console.log(JSON.stringify({ error: (err as Error).message }));
    return err instanceof UsageError ? 2 : 1;
  }
}

async function refresh(values: ParsedCommandLine<typeof UPDATE>["values"], config: Config): Promise<number> {
  await ensureDatasets(config.dataDir, { ...config, env: process.env }, (line) => console.error(`riskcheck: ${line}`));
  const maxShrink = values["max-shrink"] === undefined ? DEFAULT_MAX_SHRINK : Number(values["max-shrink"]);
  if (!(maxShrink >= 0 && maxShrink <= 1)) throw new UsageError("--max-shrink is a fraction between 0 and 1, e.g. 0.5");
  const started = performance.now();
  const before = currentVersion(config.dataDir);
  const dns = config.dns.resolvers === null ? null : resolverMailDns(config.dns.resolvers);
  const report = await runUpdate({
    dataDir: config.dataDir,
    sourcesFile: config.sourcesFile,
    only: values.only
      ?.split(",")
      .map((n) => n.trim())
      .filter(Boolean),
    force: values.force ?? false,
    maxShrink,
    keepVersions: config.keepVersions,
    thresholds: config.thresholds,
    emailRule: config.emailEvidence,
    env: process.env,
    progress: (name) => progressLine(name, (text) => process.stderr.write(text), process.stderr.isTTY === true),
    packages: embeddedPackages() ?? installedPackages(),
    log: (line) => process.stderr.write(`${line}\n`),
    mailServers: dns && {
      dns,
      domains: config.dns.updateDomains,
      timeMs: config.dns.updateTimeMs,
      inFlight: config.dns.inFlight,
    },
  })
    .catch((err) => {
      // A sources file the user wrote wrong is a usage error (exit 2), as a wrong flag is.
      throw err instanceof SourcesError ? new UsageError(err.message) : err;
    })
    .finally(() => dns?.close());
  if (process.stderr.isTTY) process.stderr.write("\r\x1b[2K");
  const failed = report.refused.length > 0 || report.outcomes.some((o) => o.outcome === "failed");
  await recordRefresh(config, report, before);
  if (values.json) {
    console.log(JSON.stringify(report));
    return failed ? 1 : 0;
  }
  printTable([
    ["SOURCE", "RESULT", "ENTRIES", "DATA DATE", "DETAIL"],
    ...report.outcomes.map((o) => [
      o.name,
      o.outcome,
      o.entries === undefined ? "" : String(o.entries),
      o.dataDate?.slice(0, 10) ?? "",
      o.detail,
    ]),
  ]);
  const rebuilt = report.outputs.filter((o) => o.rebuilt);
  if (rebuilt.length) {
    console.log("");
    printTable([
      ["OUTPUT", "BEFORE", "AFTER", "FROM", "NOTE"],
      ...rebuilt.map((o) => [
        o.name,
        o.before === null ? "-" : String(o.before),
        o.after === null ? "-" : String(o.after),
        sourceNames(o.sources),
        o.note ?? "",
      ]),
    ]);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log("");
  if (report.refused.length) {
    for (const line of report.refused) console.error(`riskcheck: refused: ${line}`);
    console.error(
      `riskcheck: nothing was installed; the current data keeps serving (${seconds} s). Check the sources named ` +
        `above, or accept with --force.`,
    );
    return 1;
  }
  const groups = groupProblems(
    report.outcomes
      .filter((o) => o.outcome === "failed")
      .map((o) => ({ name: o.name, detail: o.problem ?? o.detail, keeps: o.keeps ?? null })),
  );
  if (report.version) {
    const pruned = report.pruned.length
      ? ` Removed ${report.pruned.length} version${report.pruned.length === 1 ? "" : "s"} outside the ` +
        `${config.keepVersions} kept along its history (--keep-versions; versions rolled back from are outside it).`
      : "";
    console.log(
      `Dataset version ${report.version} is current (${seconds} s). A running server picks it up within seconds.${pruned}`,
    );
    for (const line of memorySummary(report.memory ?? [])) console.log(line);
    if (report.mailServers) console.log(mailServersSummary(report.mailServers));
    for (const line of disputedSummary(report.disputed, dataFiles(config.dataDir).disputedDomains)) console.log(line);
  } else if (groups.length) {
    console.log(`Nothing changed (${seconds} s): the data in use keeps serving.`);
  } else {
    console.log(`Nothing changed (${seconds} s); --force rebuilds anyway.`);
  }
  // One line on stderr: what failed, grouped by why, and what can help.
  if (groups.length)
    console.error(`riskcheck: could not fetch ${groups.map(describeGroup).join("; ")}. Fix: ${groups[0].fix}.`);
  return failed ? 1 : 0;
}

/** A new version installed, or one refused, or sources that could not be fetched (the data in use kept); nothing when nothing changed. */
async function recordRefresh(config: Config, report: UpdateReport, before: string | null): Promise<void> {
  const failedSources = report.outcomes.filter((o) => o.outcome === "failed").map((o) => o.name);
  const fetchProblem = failedSources.length ? `could not fetch ${failedSources.join(", ")}` : null;
  if (report.version !== null)
    await recordUpdate(config, "update.installed", {
      target: `dataset version ${report.version}`,
      change: { version: { before, after: report.version } },
      detail: fetchProblem && `${fetchProblem}; their last data is in it`,
    });
  else if (report.refused.length || fetchProblem)
    await recordUpdate(config, "update.failed", {
      target: `datasets in ${resolvePath(config.dataDir)}`,
      outcome: "failed",
      detail: report.refused.length
        ? `refused: ${report.refused.join("; ")}; the data in use keeps serving`
        : `${fetchProblem}; the data in use keeps serving`,
    });
}

function sourceNames(names: readonly string[]): string {
  if (names.length === 0) return "no source";
  return names.length <= 3 ? names.join(", ") : `${names.slice(0, 2).join(", ")} and ${names.length - 2} more`;
}

/** Outside the binary, npm: sources read the packages installed beside the program, when there are any. */
function installedPackages(): PackageFiles | null {
  const candidates = [resolvePath("node_modules"), resolvePath(import.meta.dir, "../..", "node_modules")];
  const found = candidates.find((dir) => existsSync(dir));
  return found ? nodeModulesPackages(found) : null;
}

function printVersions(versions: VersionListing[], config: Config): void {
  if (versions.length === 0) {
    console.log(
      `No dataset version yet in ${resolvePath(config.dataDir)} (${DATA_DIR_ORIGIN}); to fill it, run: ${hint(config, "update")}`,
    );
    return;
  }
  const count = (v: VersionListing, output: string) => String(v.manifest?.outputs[output]?.count ?? "-");
  printTable([
    ["", "VERSION", "CREATED", "BUILT ON", "SOURCES", "DISPOSABLE", "FREE", "REPUTATION", "ASN"],
    ...versions.map((v) => [
      v.current ? "*" : "",
      v.name,
      v.manifest?.created.slice(0, 19).replace("T", " ") ?? "?",
      v.manifest?.base ?? "-",
      String(Object.keys(v.manifest?.sources ?? {}).length),
      count(v, "disposable-domains"),
      count(v, "free-domains"),
      count(v, "reputation-index"),
      count(v, "asn-index"),
    ]),
  ]);
}

/** Names shown in full before the rest is counted. */
const SHOWN = 20;

/** The update summary's lines on what the rolling disposable lists remember. */
function memorySummary(memory: readonly ListMemory[]): string[] {
  return memory
    .filter((m) => m.remembered || m.left || m.forgotten)
    .map((m) => {
      const since =
        m.oldest === null ? "" : ` (the oldest last listed ${new Date(m.oldest * 1000).toISOString().slice(0, 10)})`;
      return (
        `${m.source}: remembers ${m.remembered} name${m.remembered === 1 ? "" : "s"} it no longer lists${since}, ` +
        `each for ${formatDuration(m.retentionSeconds * 1000)} after it left; ${m.left} left in this update, ` +
        `${m.forgotten} forgotten.`
      );
    });
}

/** The update summary's line on the disposable domains' mail servers (DNS evidence on). */
function mailServersSummary(m: MailServersReport): string {
  const failed = m.failed ? ` (${m.failed} lookups failed: their earlier servers kept)` : "";
  const waiting =
    m.waiting > 0
      ? `; ${m.waiting} wait for a later update (RISKCHECK_DNS_UPDATE_DOMAINS, RISKCHECK_DNS_UPDATE_TIME)`
      : "";
  return (
    `Mail servers: resolved ${m.resolved} known disposable domains in ${m.seconds} s${failed}${waiting}. ` +
    `The table, from ${m.observed} domains, holds ${m.hosts} mail servers and ${m.addresses} addresses that 2 or more ` +
    `disposable domains share; ${m.exempt} servers are exempt (big providers, relays, forwarders).`
  );
}

/** The update summary's lines on disputed disposable names. */
function disputedSummary(disputed: DisputedNames | undefined, file: string): string[] {
  if (!disputed) return [];
  const lines: string[] = [];
  const list = (entries: DisputedNames["heldBack"]) => {
    for (const n of entries.slice(0, SHOWN))
      lines.push(`  ${n.domain}: ${n.why}; listed by ${n.sources.join(", ")}${n.decided ? `; ${n.decided}` : ""}`);
    if (entries.length > SHOWN) lines.push(`  … and ${entries.length - SHOWN} more (${file})`);
  };
  if (disputed.heldBack.length) {
    lines.push(
      `Held back ${disputed.heldBack.length} new disposable name${disputed.heldBack.length === 1 ? "" : "s"} that ` +
        `contradict what riskcheck knows and that the evidence does not settle (disputed, most likely disposable ` +
        `first; settle each with riskcheck email allow|deny):`,
    );
    list(disputed.heldBack);
  }
  if (disputed.servedAnyway.length) {
    lines.push(
      `Served ${disputed.servedAnyway.length} disputed name${disputed.servedAnyway.length === 1 ? "" : "s"} that ` +
        `the evidence settles as disposable:`,
    );
    list(disputed.servedAnyway);
  }
  if (disputed.allowOverruled)
    lines.push(
      `The allowlist and the privacy relays overrule ${disputed.allowOverruled} ` +
        `name${disputed.allowOverruled === 1 ? "" : "s"} that the lists newly list.`,
    );
  return lines;
}
