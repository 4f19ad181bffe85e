import { createReadStream, existsSync, fstatSync, readFileSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { type Config, loadConfig } from "../app/config.ts";
import { UsageError } from "../app/usage-error.ts";
import { type OverridesInForce, withOverrides } from "../datasets/snapshot.ts";
import { OverrideWatch } from "../email/override-watch.ts";
import { ipOverrideWatch } from "../ip/overrides/ip-override-watch.ts";
import { OverrideLines } from "../ip/overrides/override-lines.ts";
import { LocalReportIndex } from "../reports/local-report-index.ts";
import { formatDuration } from "../time/duration.ts";
import { openStores } from "../stores/open.ts";
import type { Stores } from "../stores/stores.ts";
import type { ScanSink } from "../scan/scan.ts";
import type { ScanSummary } from "../scan/scan-summary.ts";
import type { MailEvidenceCounts } from "../email/mail-evidence.ts";
import type { ParsedCommandLine } from "./command-spec.ts";
import type { SCAN } from "./scan-command.ts";

const FORMATS = new Set(["csv", "jsonl"]);

export async function runScan({ values, operand }: ParsedCommandLine<typeof SCAN>): Promise<number> {
  const format = values.format;
  if (format !== undefined && !FORMATS.has(format)) throw new UsageError(`--format is csv or jsonl, not "${format}"`);
  const fromStdin = operand === "" || operand === "-";
  if (fromStdin && process.stdin.isTTY)
    throw new UsageError("scan reads FILE, or standard input when it is piped: give a file");
  const source = fromStdin ? fstatSync(0) : statSync(operand, { throwIfNoEntry: false });
  if (source === undefined || source.isDirectory()) {
    console.error(`riskcheck: scan: ${operand}: ${source === undefined ? "no such file" : "a directory, not a file"}`);
    return 1;
  }
  const out = values.out === undefined || values.out === "-" ? null : values.out;
  const target = out === null ? fstatSync(1) : statSync(out, { throwIfNoEntry: false });
  // The same file however it is named (a link, another path): the scan would read its own rows without end.
  if (source.isFile() && target?.isFile() && target.dev === source.dev && target.ino === source.ino) {
    throw new UsageError(
      `the output is the input file (${fromStdin ? "standard input" : operand}): write the rows to another file`,
    );
  }
  if (values.event !== undefined && values.policy === undefined)
    throw new UsageError("--event is the event label of --policy's decisions: give --policy FILE too");
  const policy = values.policy === undefined ? null : await readPolicy(values.policy, values.event ?? "signup");
  const config = loadConfig(values, process.env);
  const state = await databaseState(config);
  // Loaded here, not at the top: the CLI's other commands start without the dataset code.
  const [{ loadSnapshot }, { ScanInputError, scan }, { openMailEvidence }] = await Promise.all([
    import("../datasets/load-snapshot.ts"),
    import("../scan/scan.ts"),
    import("../app/dns-evidence.ts"),
  ]);
  const { snapshot } = await loadSnapshot(config.dataDir, config.thresholds, { emailRule: config.emailEvidence });
  // What the load left behind goes before the rows add theirs: the peak is then the snapshot and one collection interval's rows.
  Bun.gc(true);
  const size = source.isFile() ? source.size : null;
  // Bun's file stream refuses character devices and FIFOs (/dev/null, a named pipe): Node's reads them.
  const input = fromStdin
    ? Bun.stdin.stream()
    : source.isFile()
      ? Bun.file(operand).stream()
      : createReadStream(operand);
  const writer = out === null ? Bun.stdout.writer() : Bun.file(out).writer();
  const sink: ScanSink = {
    async write(text) {
      writer.write(text);
      await writer.flush();
    },
  };
  const progress = process.stderr.isTTY ? progressLine(size) : undefined;
  let summary: ScanSummary;
  const started = performance.now();
  const mail = openMailEvidence(config.dns);
  try {
    summary = await scan(
      input,
      sink,
      withOverrides(snapshot, state.overrides),
      {
        format: format as "csv" | "jsonl" | undefined,
        explain: values.explain ?? false,
        onlyRisky: values["only-risky"] ?? false,
        columns: { email: values["email-column"], ip: values["ip-column"] },
        localReports: state.reports,
        policy,
        mail,
      },
      progress?.update,
    );
  } catch (err) {
    if (err instanceof ScanInputError) throw new UsageError(err.message);
    throw err;
  } finally {
    mail?.close();
    progress?.clear();
    await writer.end();
  }
  const dnsLines = mail === null ? [] : [dnsLine(mail.counts)];
  const table =
    summaryTable(summary, (performance.now() - started) / 1000) +
    [...summary.policyLines(), ...dnsLines, ...state.notes].map((line) => `${line}\n`).join("");
  if (out === null) process.stderr.write(table);
  else process.stdout.write(table);
  return 0;
}

/** What DNS evidence did over the scan. */
function dnsLine(c: MailEvidenceCounts): string {
  return (
    `DNS evidence: ${c.lookups} domains looked up (${c.failed} failed, ${c.timeouts} rows answered past the budget ` +
    `from the lists alone), ${c.cacheHits} rows from the cache; ${c.decided} rows disposable by their mail servers.`
  );
}

/** The rules of a --policy file in force now, compiled; a file that cannot be read or does not parse is a usage error naming why. */
async function readPolicy(file: string, event: string) {
  const [{ EVENT, PolicyError, parseRuleSetText, problemText }, { CompiledPolicy }] = await Promise.all([
    import("../assess/parse-policy.ts"),
    import("../assess/compiled-policy.ts"),
  ]);
  if (!EVENT.test(event.toLowerCase()))
    throw new UsageError(`--event "${event}": an event label, 1 to 64 letters, digits, '_', '.', ':' or '-'`);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(
      `--policy ${file}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message}`,
    );
  }
  try {
    const nowMs = Date.now();
    const rules = parseRuleSetText(text, { author: userInfo().username, nowMs });
    return { compiled: CompiledPolicy.inForce(rules, nowMs), event: event.toLowerCase() };
  } catch (err) {
    if (!(err instanceof PolicyError)) throw err;
    throw new UsageError(`--policy ${file} is refused:\n${err.problems.map((p) => `  ${problemText(p)}`).join("\n")}`);
  }
}

interface DatabaseState {
  readonly overrides: OverridesInForce;
  readonly reports: LocalReportIndex | null;
  /** What was read, and from where, for the summary. */
  readonly notes: readonly string[];
}

/**
 * What the server's database adds to the datasets, read once as `serve` reads it: the email
 * override lines in force and the local reports of the window. Read only: a SQLite file
 * that does not exist is not created, and nothing is pruned.
 */
async function databaseState(config: Config): Promise<DatabaseState> {
  if (config.databaseUrl === null && !existsSync(config.dbPath)) {
    return {
      overrides: { email: new Map(), ip: new OverrideLines() },
      reports: null,
      notes: [
        `email and IP overrides and local reports: none applied, no database at ${config.dbPath} (scan creates ` +
          `none; check --db / RISKCHECK_DB)`,
      ],
    };
  }
  // A database that cannot be read is an I/O error: answers without the operator's lines or reports would contradict the server's.
  let stores: Stores;
  try {
    stores = await openStores(config);
  } catch (err) {
    throw new Error(`scan: cannot read the server's database: ${(err as Error).message}`);
  }
  try {
    const watch = new OverrideWatch(stores.emailOverrides, (line) => line.domain, Date.now);
    const ip = ipOverrideWatch(stores.ipOverrides, Date.now);
    await Promise.all([watch.refresh(), ip.watch.refresh()]);
    const nowMs = Date.now();
    const active = new Set((await stores.keys.list()).filter((k) => k.revokedAt === null).map((k) => k.id));
    const reports = new LocalReportIndex(
      config.reports.windowMs,
      () => nowMs,
      (keyId) => active.has(keyId),
    );
    await stores.reports.changes(null, nowMs - config.reports.windowMs, (rows) => reports.add(rows));
    const lines = watch.active.size;
    const ipLines = ip.watch.active.size;
    return {
      overrides: { email: watch.active, ip: ip.lines },
      reports,
      notes: [
        `email overrides: ${lines} ${lines === 1 ? "line" : "lines"} in force, from ${stores.description}`,
        `IP overrides: ${ipLines} ${ipLines === 1 ? "line" : "lines"} in force, from ${stores.description}`,
        `local reports: ${reports.addresses} reported ${reports.addresses === 1 ? "address" : "addresses"} in the ` +
          `last ${formatDuration(config.reports.windowMs)}, from ${stores.description}`,
      ],
    };
  } catch (err) {
    throw new Error(`scan: cannot read the server's database (${stores.description}): ${(err as Error).message}`);
  } finally {
    await stores.close();
  }
}

/**
 * One line on standard error, rewritten at most ten times a second: rows, rows/s, and with a known size the share done
 * and the time left.
 */
function progressLine(size: number | null) {
  const started = performance.now();
  let shown = 0;
  return {
    update(rows: number, bytes: number) {
      const now = performance.now();
      if (now - shown < 100) return;
      shown = now;
      const seconds = (now - started) / 1000;
      const rate = rows / Math.max(seconds, 0.001);
      let line = `${rows.toLocaleString("en-US")} rows, ${Math.round(rate).toLocaleString("en-US")} rows/s`;
      if (size !== null && size > 0) {
        const done = Math.min(1, bytes / size);
        const left = done > 0 ? (seconds * (1 - done)) / done : 0;
        line += `, ${Math.floor(done * 100)} %, ${Math.ceil(left)} s left`;
      }
      process.stderr.write(`\r\x1b[2K${line}`);
    },
    clear() {
      process.stderr.write("\r\x1b[2K");
    },
  };
}

function summaryTable(summary: ScanSummary, seconds: number): string {
  const rows = summary.table();
  const width = Math.max(...rows.map(([label]) => label.length));
  const numbers = rows.map(([, n]) => n.toLocaleString("en-US"));
  const numberWidth = Math.max(...numbers.map((n) => n.length));
  const lines = [
    ...summary.columns,
    ...rows.map(([label], i) => `${label.padEnd(width)}  ${numbers[i].padStart(numberWidth)}`),
  ];
  lines.push(
    `${summary.rows.toLocaleString("en-US")} rows in ${seconds.toFixed(1)} s, ` +
      `${Math.round(summary.rows / Math.max(seconds, 0.001)).toLocaleString("en-US")} rows/s`,
  );
  return `${lines.join("\n")}\n`;
}
