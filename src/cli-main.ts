import { existsSync } from "node:fs";
import { maxHeaderSize } from "node:http";
import { resolve as resolvePath } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { type CommandSpec, type ParsedCommandLine, parseCommandLine, wantsHelp } from "./cli/command-spec.ts";
import { ADMIN_SET_PASSWORD, ADMIN_UNLOCK, DB_MIGRATE, DEFAULT_MAX_SHRINK, KEYS_CREATE, KEYS_LIST, KEYS_REVOKE, SERVE, UPDATE, VERSION } from "./cli/commands.ts";
import { commandHelp, commandList } from "./cli/help.ts";
import { REPORTS_DELETE, REPORTS_EXPORT, REPORTS_LIST, deleteReports, exportReports, listReports } from "./cli/reports-command.ts";
import { SCAN, runScan } from "./cli/scan-command.ts";
import { type Config, UsageError, integer, loadConfig } from "./config.ts";
import { DATA_DIR_ORIGIN } from "./datasets/dataset-error.ts";
import { progressLine } from "./datasets/fetch-source.ts";
import { describeGroup, groupProblems } from "./datasets/source-problems.ts";
import { SourcesError } from "./datasets/sources.ts";
import type { StartedLoad } from "./datasets/start-load.ts";
import { runUpdate } from "./datasets/update.ts";
import { type VersionListing, listVersions, rollback, withUpdateLock } from "./datasets/versions.ts";
import { checkNewPassword, setAdminPassword } from "./dashboard/admin-password.ts";
import { parseIpAddress } from "./ip/address/parse.ts";
import type { KeyRecord } from "./keys/key-record.ts";
import { KeyStoreError, MAX_KEY_LIMIT } from "./keys/key-store.ts";
import { parsePermissions } from "./keys/permissions.ts";
import type { KeyUsage } from "./keys/usage-store.ts";
import { redactedDatabaseUrl } from "./stores/postgres/connection-url.ts";
import { copySqliteToPostgres } from "./stores/copy-sqlite-to-postgres.ts";
import { MAX_HTTP_HEADER_BYTES, SERVE_RUNTIME_FLAGS } from "./runtime-flags.ts";
import { type Log, startServer } from "./server.ts";
import { hint } from "./self-command.ts";
import { openStores } from "./stores/open.ts";
import type { Stores } from "./stores/stores.ts";
import { EMAIL_ALLOW, EMAIL_DENY, EMAIL_LIST, EMAIL_REMOVE, disputedSummary, emailCommands } from "./cli/email.ts";

const log: Log = {
  info: (line) => console.log(line),
  error: (line) => console.error(line),
};

/** `serve`'s exit status: none, the process goes on until a signal stops it. */
const KEEP_RUNNING = -1;

async function serve({ values }: ParsedCommandLine<typeof SERVE>, { startedLoad }: RunContext): Promise<number> {
  let stopWith: (reason: string, exitCode: number) => void = () => {};
  const server = await startServer(loadConfig(values, process.env), log, (reason) => stopWith(reason, 1), startedLoad ?? undefined);
  if (maxHeaderSize < MAX_HTTP_HEADER_BYTES) {
    log.info(`Note: Bun was started without ${SERVE_RUNTIME_FLAGS.join(" ")}: a request with over ${maxHeaderSize} bytes of URL and headers gets a bare 431. "bun run start" and the binary pass it.`);
  }
  let signals = 0;
  const stop = (signal: string, exitCode = 0) => {
    if (signals++ > 0) {
      log.info(`${signal} received again: closing open connections now`);
      void server.closeConnections();
      return;
    }
    log.info(`${signal}${exitCode ? "" : " received"}: finishing in-flight requests and saving usage counters (a second signal stops at once)`);
    server.shutdown().then(
      () => process.exit(exitCode),
      (err) => {
        log.error(`shutdown failed: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  };
  stopWith = (reason, exitCode) => {
    log.error(reason);
    stop("stopping", exitCode);
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGHUP", () => void server.reload("SIGHUP"));
  return KEEP_RUNNING;
}

/** Where a SQLite database path came from, for messages. */
function databaseOrigin(config: Config, values: { "data-dir"?: string; db?: string }): string {
  if (values.db !== undefined) return "--db";
  if (process.env.RISKCHECK_DB) return "RISKCHECK_DB";
  if (values["data-dir"] !== undefined) return `--data-dir ${values["data-dir"]}`;
  if (process.env.RISKCHECK_DATA_DIR) return `RISKCHECK_DATA_DIR=${process.env.RISKCHECK_DATA_DIR}`;
  return `the default data directory ${config.dataDir} in ${process.cwd()}`;
}

/**
 * For commands that read keys: a SQLite file that is not there means a wrong data directory
 * (a command run elsewhere than the server), not an empty database to create.
 */
function requireDatabase(config: Config, values: { "data-dir"?: string; db?: string }): void {
  if (config.databaseUrl !== null || existsSync(config.dbPath)) return;
  throw new Error(
    `no database at ${resolvePath(config.dbPath)} (from ${databaseOrigin(config, values)}); nothing was created. Give the --data-dir (or --db) that the server uses: its start-up line names them`,
  );
}

/**
 * For commands that write a new database's first row (a key, the dashboard password): a data
 * directory that is not there means the command runs elsewhere than the server, whose data
 * directory holds its datasets; a database made there would be one no server reads. A new
 * database in a real data directory is made: the returned function says so, once it is.
 */
function prepareDatabase(config: Config, values: { "data-dir"?: string; db?: string }): () => void {
  if (config.databaseUrl !== null || existsSync(config.dbPath)) return () => {};
  const ownFile = resolvePath(config.dbPath) === resolvePath(config.dataDir, "riskcheck.sqlite");
  if (ownFile && !existsSync(config.dataDir)) {
    throw new Error(`${resolvePath(config.dataDir)}: no such data directory (from ${databaseOrigin(config, values)}); nothing was created. Give the --data-dir (or --db) that the server uses: its start-up line names them`);
  }
  return () => console.error(`riskcheck: made the new database ${resolvePath(config.dbPath)}; a server reads it when started with the same --data-dir${ownFile ? "" : " and --db"}`);
}

/** Runs `use` on the configured database's stores and closes them, whatever happens. */
async function withStores<T>(config: Config, use: (stores: Stores) => Promise<T>): Promise<T> {
  const stores = await openStores(config);
  try {
    return await use(stores);
  } finally {
    await stores.close();
  }
}

/** A per-key limit flag: absent is the server's default; empty is a mistake, not 0 (which means unlimited). */
function keyLimit(value: string | undefined, flag: string): number | null {
  if (value === undefined) return null;
  if (value === "") throw new UsageError(`${flag} needs a number (0 for no limit); leave the flag out for the server's default`);
  return integer(value, flag, 0, 0, MAX_KEY_LIMIT);
}

async function createKey({ values }: ParsedCommandLine<typeof KEYS_CREATE>): Promise<number> {
  const rate = keyLimit(values["rate-per-minute"], "--rate-per-minute");
  const quota = keyLimit(values["ip-quota-per-month"], "--ip-quota-per-month");
  const permissions = values.permissions === undefined ? undefined : parsePermissions(values.permissions);
  if (permissions !== undefined && "error" in permissions) throw new UsageError(`--permissions: ${permissions.error}`);
  const config = loadConfig(values, process.env);
  const madeNew = prepareDatabase(config, values);
  const { key, secret } = await withStores(config, async ({ keys }) => {
    try {
      return await keys.create({ name: values.name, ratePerMinute: rate, ipQuotaPerMonth: quota, permissions: permissions?.permissions });
    } catch (err) {
      if (err instanceof KeyStoreError) throw new UsageError(err.message);
      throw err;
    }
  });
  madeNew();
  if (values.json) {
    console.log(JSON.stringify({ ...keyJson(key), key: secret }));
  } else {
    console.log(`Created ${key.id} "${key.name}". This is the only time the key is shown; store it now:`);
    console.log(secret);
  }
  return 0;
}

async function listKeys({ values }: ParsedCommandLine<typeof KEYS_LIST>): Promise<number> {
  const config = loadConfig(values, process.env);
  requireDatabase(config, values);
  const { list, totals } = await withStores(config, async ({ keys, usage }) => {
    const list = await keys.list();
    return { list, totals: await usage.usageOf(list.map((k) => k.id), 0, Date.now()) };
  });
  const rows = list.map((k) => ({ ...keyJson(k), usage: usageJson(totals.get(k.id), k, config) }));
  if (values.json) console.log(JSON.stringify(rows, null, 2));
  else printKeyTable(rows, config);
  return 0;
}

async function revokeKey({ values, operand }: ParsedCommandLine<typeof KEYS_REVOKE>): Promise<number> {
  const config = loadConfig(values, process.env);
  requireDatabase(config, values);
  const key = await withStores(config, ({ keys }) => keys.revoke(operand));
  console.log(`Revoked ${key.id} "${key.name}" at ${key.revokedAt}; the API refuses it from the next request.`);
  return 0;
}

/** `db migrate [--from-sqlite FILE]`: brings the schema up to date, and copies a SQLite database into an empty PostgreSQL one. */
async function migrateDatabase({ values }: ParsedCommandLine<typeof DB_MIGRATE>): Promise<number> {
  const config = loadConfig(values, process.env);
  const source = values["from-sqlite"];
  if (source !== undefined && config.databaseUrl === null) throw new UsageError("--from-sqlite copies into PostgreSQL: give --database-url or RISKCHECK_DATABASE_URL too");
  if (source !== undefined && !existsSync(source)) throw new UsageError(`--from-sqlite ${source}: no such file`);
  if (source === undefined) {
    await withStores(config, async (stores) => console.log(`${stores.description}: the schema is up to date.`));
    return 0;
  }
  const copied = await copySqliteToPostgres(source, config.databaseUrl!);
  console.log(`Copied ${source} into ${redactedDatabaseUrl(config.databaseUrl!)}: ${copied.keys} keys, ${copied.usageRows} usage rows, ${copied.sessions} dashboard sessions, ${copied.signInFailures} sign-in lock-out records, ${copied.reports} local reports${copied.adminPassword ? ", the dashboard password" : ""}; this month's quota counts start from its usage.`);
  if (copied.limitedKeys.length) console.log(`Note: the rate or quota of ${copied.limitedKeys.join(", ")} was above ${MAX_KEY_LIMIT}, the most PostgreSQL holds, and was copied as ${MAX_KEY_LIMIT}.`);
  return 0;
}

async function update({ values }: ParsedCommandLine<typeof UPDATE>): Promise<number> {
  const config = loadConfig(values, process.env);
  if (values.rollback) {
    const { current, from } = await withUpdateLock(config.dataDir, () => rollback(config.dataDir));
    console.log(`Dataset version ${current} is current again (rolled back from ${from}); a running server switches within seconds. Roll back again to step further.`);
    return 0;
  }
  if (values.list) {
    printVersions(await listVersions(config.dataDir), config);
    return 0;
  }
  const maxShrink = values["max-shrink"] === undefined ? DEFAULT_MAX_SHRINK : Number(values["max-shrink"]);
  if (!(maxShrink >= 0 && maxShrink <= 1)) throw new UsageError("--max-shrink is a fraction between 0 and 1, e.g. 0.5");
  const started = performance.now();
  const report = await runUpdate({
    dataDir: config.dataDir,
    sourcesFile: config.sourcesFile,
    only: values.only?.split(",").map((n) => n.trim()).filter(Boolean),
    force: values.force ?? false,
    maxShrink,
    keepVersions: config.keepVersions,
    thresholds: config.thresholds,
    env: process.env,
    progress: (name) => progressLine(name, (text) => process.stderr.write(text), process.stderr.isTTY === true),
    nodeModules: installedPackages(),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  if (process.stderr.isTTY) process.stderr.write("\r\x1b[2K");
  const failed = report.refused.length > 0 || report.outcomes.some((o) => o.outcome === "failed");
  if (values.json) {
    console.log(JSON.stringify(report));
    return failed ? 1 : 0;
  }
  printTable([
    ["SOURCE", "RESULT", "ENTRIES", "DATA DATE", "DETAIL"],
    ...report.outcomes.map((o) => [o.name, o.outcome, o.entries === undefined ? "" : String(o.entries), o.dataDate?.slice(0, 10) ?? "", o.detail]),
  ]);
  const rebuilt = report.outputs.filter((o) => o.rebuilt);
  if (rebuilt.length) {
    console.log("");
    printTable([
      ["OUTPUT", "BEFORE", "AFTER", "FROM", "NOTE"],
      ...rebuilt.map((o) => [o.name, o.before === null ? "-" : String(o.before), o.after === null ? "-" : String(o.after), sourceNames(o.sources), o.note ?? ""]),
    ]);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log("");
  if (report.refused.length) {
    for (const line of report.refused) console.error(`riskcheck: refused: ${line}`);
    console.error(`riskcheck: nothing was installed; the current data keeps serving (${seconds} s). Check the sources named above, or accept with --force.`);
    return 1;
  }
  const groups = groupProblems(report.outcomes.filter((o) => o.outcome === "failed").map((o) => ({ name: o.name, detail: o.problem ?? o.detail, keeps: o.keeps ?? null })));
  if (report.version) {
    const pruned = report.pruned.length ? ` Removed ${report.pruned.length} older version${report.pruned.length === 1 ? "" : "s"} beyond --keep-versions ${config.keepVersions}.` : "";
    console.log(`Dataset version ${report.version} is current (${seconds} s). A running server picks it up within seconds.${pruned}`);
    for (const line of disputedSummary(report.disputed)) console.log(line);
  } else if (groups.length) {
    console.log(`Nothing changed (${seconds} s): the data in use keeps serving.`);
  } else {
    console.log(`Nothing changed (${seconds} s); --force rebuilds anyway.`);
  }
  // One line on stderr: what failed, grouped by why, and what can help.
  if (groups.length) console.error(`riskcheck: could not fetch ${groups.map(describeGroup).join("; ")}. Fix: ${groups[0].fix}.`);
  return failed ? 1 : 0;
}

function sourceNames(names: readonly string[]): string {
  if (names.length === 0) return "no source";
  return names.length <= 3 ? names.join(", ") : `${names.slice(0, 2).join(", ")} and ${names.length - 2} more`;
}

/** npm: sources read the packages installed beside the program, when there are any. */
function installedPackages(): string | null {
  const candidates = [resolvePath("node_modules"), resolvePath(import.meta.dir, "..", "node_modules")];
  return candidates.find((dir) => existsSync(dir)) ?? null;
}

function printVersions(versions: VersionListing[], config: Config): void {
  if (versions.length === 0) {
    console.log(`No dataset version yet in ${resolvePath(config.dataDir)} (${DATA_DIR_ORIGIN}); to fill it, run: ${hint(config, "update")}`);
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

async function setPassword({ values }: ParsedCommandLine<typeof ADMIN_SET_PASSWORD>): Promise<number> {
  const config = loadConfig(values, process.env);
  // One trailing line break is what `echo` or a terminal adds; it is not part of the password.
  const password = (await Bun.stdin.text()).replace(/\r?\n$/, "");
  const problem = checkNewPassword(password);
  if (problem) throw new UsageError(`${problem}; pipe it on standard input, e.g. printf '%s' "$PASSWORD" | ${hint(config, "admin set-password")}`);
  const madeNew = prepareDatabase(config, values);
  await withStores(config, ({ adminPassword }) => setAdminPassword(adminPassword, password));
  madeNew();
  console.log("Dashboard password set; existing dashboard sessions were signed out.");
  if (config.adminPassword) console.log("Note: RISKCHECK_ADMIN_PASSWORD is set and takes precedence while it is.");
  return 0;
}

/** `admin unlock [ADDRESS]`: lifts dashboard sign-in lock-outs, of one address or of all; a running server sees it at once. */
async function unlock({ values, operand }: ParsedCommandLine<typeof ADMIN_UNLOCK>): Promise<number> {
  const address = operand || null;
  if (address !== null && parseIpAddress(address) === null) throw new UsageError(`admin unlock takes an IP address, got "${address}"`);
  const config = loadConfig(values, process.env);
  requireDatabase(config, values);
  const unlocked = await withStores(config, ({ signInThrottle }) => signInThrottle.unlock(address, Date.now()));
  console.log(
    unlocked.length === 0
      ? `Nothing was locked out${address === null ? "" : ` for ${address}`}; failed sign-ins are forgotten.`
      : `Lifted the dashboard sign-in lock-out of ${unlocked.join(", ")}.`,
  );
  return 0;
}

function keyJson(k: KeyRecord) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    status: k.revokedAt ? "revoked" : "active",
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    revoked_at: k.revokedAt,
    rate_per_minute: k.ratePerMinute,
    ip_quota_per_month: k.ipQuotaPerMonth,
    permissions: k.permissions,
  };
}

function usageJson(t: KeyUsage | undefined, k: KeyRecord, config: Config) {
  const quota = k.ipQuotaPerMonth ?? config.ipQuotaPerMonth;
  return {
    today: { email: t?.today.email ?? 0, ip: t?.today.ip ?? 0 },
    month: { email: t?.month.email ?? 0, ip: t?.month.ip ?? 0 },
    ip_quota_used: t?.ipQuotaUsed ?? 0,
    ip_quota_per_month: quota === 0 ? null : quota,
    ip_quota_left: quota === 0 ? null : Math.max(0, quota - (t?.ipQuotaUsed ?? 0)),
  };
}

function printKeyTable(rows: (ReturnType<typeof keyJson> & { usage: ReturnType<typeof usageJson> })[], config: Config): void {
  if (rows.length === 0) {
    console.log(`No keys yet. Create one with: ${hint(config, "keys create --name my-app")}`);
    return;
  }
  const table = [
    ["ID", "NAME", "PREFIX", "STATUS", "PERMISSIONS", "CREATED", "LAST USED", "TODAY email/ip", "MONTH email/ip", "IP QUOTA LEFT"],
    ...rows.map((r) => [
      r.id,
      r.name,
      r.prefix + "…",
      r.status,
      r.permissions.join(","),
      r.created_at.slice(0, 16).replace("T", " "),
      r.last_used_at ? r.last_used_at.slice(0, 16).replace("T", " ") : "never",
      `${r.usage.today.email}/${r.usage.today.ip}`,
      `${r.usage.month.email}/${r.usage.month.ip}`,
      r.usage.ip_quota_left === null ? "unlimited" : `${r.usage.ip_quota_left}/${r.usage.ip_quota_per_month}`,
    ]),
  ];
  printTable(table);
}

function printTable(table: string[][]): void {
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => Bun.stringWidth(row[i]))));
  for (const row of table) console.log(row.map((cell, i) => cell + " ".repeat(widths[i] - Bun.stringWidth(cell))).join("  ").trimEnd());
}

function version(): number {
  console.log(`riskcheck ${pkg.version}`);
  return 0;
}

const email = emailCommands(withStores);

interface Command {
  readonly spec: CommandSpec;
  run(args: string[], context: RunContext): Promise<number>;
}

function command<C extends CommandSpec>(spec: C, run: (parsed: ParsedCommandLine<C>, context: RunContext) => number | Promise<number>): Command {
  return { spec, run: async (args, context) => run(parseCommandLine(spec, args), context) };
}

const COMMANDS: readonly Command[] = [
  command(SERVE, serve),
  command(UPDATE, update),
  command(SCAN, runScan),
  command(KEYS_CREATE, createKey),
  command(KEYS_LIST, listKeys),
  command(KEYS_REVOKE, revokeKey),
  command(REPORTS_LIST, listReports),
  command(REPORTS_EXPORT, exportReports),
  command(REPORTS_DELETE, deleteReports),
  command(ADMIN_SET_PASSWORD, setPassword),
  command(ADMIN_UNLOCK, unlock),
  command(DB_MIGRATE, migrateDatabase),
  command(EMAIL_ALLOW, email.allow),
  command(EMAIL_DENY, email.deny),
  command(EMAIL_LIST, email.list),
  command(EMAIL_REMOVE, email.remove),
  command(VERSION, version),
];

interface Group {
  readonly name: string;
  readonly commands: readonly Command[];
}

type Resolved = { readonly command: Command; readonly args: string[] } | { readonly problem: string; readonly group?: Group };

/** The command the first words name: "serve", or a group and its subcommand, "keys create". */
function resolve(words: string[]): Resolved {
  const [first, second] = words;
  const single = COMMANDS.find((c) => c.spec.name === first);
  if (single) return { command: single, args: words.slice(1) };
  const group = COMMANDS.filter((c) => c.spec.name.startsWith(`${first} `));
  if (group.length === 0) return { problem: first === undefined ? "no command given" : `unknown command "${first}"` };
  const sub = group.find((c) => c.spec.name === `${first} ${second}`);
  if (sub) return { command: sub, args: words.slice(2) };
  const names = group.map((c) => c.spec.name.slice(first.length + 1)).join(", ");
  const problem = second === undefined || second.startsWith("-") ? `${first} needs a subcommand: ${names}` : `unknown ${first} subcommand "${second}"`;
  return { problem, group: { name: first, commands: group } };
}

/** One line naming the problem, one pointing at the help. */
function usageError(problem: string, helpFor?: string): number {
  console.error(`riskcheck: ${problem}\nRun 'riskcheck ${helpFor ? `${helpFor} ` : ""}--help' for usage.`);
  return 2;
}

/** `riskcheck help [COMMAND...]`; `help --help` is the command list, which tells how help works. */
function help(args: string[]): number {
  const words = args.filter((w) => w !== "--help" && w !== "-h");
  if (words.length === 0) {
    console.log(commandList(COMMANDS.map((c) => c.spec)));
    return 0;
  }
  const found = resolve(words);
  if ("command" in found && found.args.length === 0) console.log(commandHelp(found.command.spec));
  else if ("group" in found && found.group && words.length === 1) console.log(commandList(found.group.commands.map((c) => c.spec), found.group.name));
  else return usageError(`no help for "${words.join(" ")}"`);
  return 0;
}

/** What the entry point began before it loaded this module. */
export interface RunContext {
  /** `serve`'s first dataset load (`startServeLoad`), or null. */
  readonly startedLoad: StartedLoad | null;
}

export async function main(argv: string[], context: RunContext = { startedLoad: null }): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "help") return help(rest);
  if (first === "--help" || first === "-h") return help([]);
  const found = resolve(first === "--version" ? ["version", ...rest] : argv);
  if ("problem" in found) {
    if (found.group && wantsHelp(argv.slice(1, 2))) return help([found.group.name]);
    return usageError(found.problem, found.group?.name);
  }
  const { spec } = found.command;
  if (wantsHelp(found.args)) {
    console.log(commandHelp(spec));
    return 0;
  }
  try {
    return await found.command.run(found.args, context);
  } catch (err) {
    if (err instanceof UsageError || err instanceof SourcesError) return usageError(err.message, spec.name);
    console.error(`riskcheck: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
