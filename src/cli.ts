#!/usr/bin/env bun
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { maxHeaderSize } from "node:http";
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import pkg from "../package.json" with { type: "json" };
import { type Config, UsageError, integer, loadConfig } from "./config.ts";
import { DatasetError } from "./datasets/dataset-error.ts";
import { progressLine } from "./datasets/fetch-source.ts";
import { SourcesError } from "./datasets/sources.ts";
import { runUpdate } from "./datasets/update.ts";
import { type VersionListing, listVersions, rollback, withUpdateLock } from "./datasets/versions.ts";
import { AdminPassword, checkNewPassword } from "./dashboard/admin-password.ts";
import { SignInThrottle } from "./dashboard/sign-in-throttle.ts";
import { openDatabase } from "./db.ts";
import { parseIpAddress } from "./ip/parse.ts";
import { openChangeSignal } from "./keys/change-signal.ts";
import type { KeyRecord } from "./keys/key-record.ts";
import { KeyStore, KeyStoreError } from "./keys/key-store.ts";
import { type KeyUsage, UsageStore } from "./keys/usage-store.ts";
import { MAX_HTTP_HEADER_BYTES, SERVE_RUNTIME_FLAGS } from "./runtime-flags.ts";
import { type Log, signalPath, startServer } from "./server.ts";

const USAGE = `usage:
  riskcheck serve   [--host H] [--port P] [--data-dir DIR] [--db FILE]
  riskcheck update  [--data-dir DIR] [--sources FILE] [--only NAME,...] [--force] [--max-shrink F] [--keep-versions N]
  riskcheck update  --rollback | --list [--data-dir DIR]
  riskcheck keys create --name NAME [--rate-per-minute N] [--ip-quota-per-month N] [--json]
  riskcheck keys list   [--json]
  riskcheck keys revoke ID_OR_NAME
  riskcheck admin set-password            (reads the password from stdin)
  riskcheck version`;

const COMMON_FLAGS = {
  "data-dir": { type: "string" },
  db: { type: "string" },
} as const;

const log: Log = {
  info: (line) => console.log(line),
  error: (line) => console.error(line),
};

/** How the user runs this program, for hints printed to them. */
function selfCommand(): string {
  return Bun.main.startsWith("/$bunfs/") ? process.argv0 : "npx bun src/cli.ts";
}

function parse<T extends ParseArgsOptionsConfig>(args: string[], options: T, positionals = 0) {
  try {
    const parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
    if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument "${parsed.positionals[positionals]}"`);
    return parsed;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError((err as Error).message.split("\n")[0]);
  }
}

async function serve(args: string[]): Promise<void> {
  const { values } = parse(args, { ...COMMON_FLAGS, host: { type: "string" }, port: { type: "string" } });
  const server = await startServer(loadConfig(values, process.env), log, selfCommand());
  if (maxHeaderSize < MAX_HTTP_HEADER_BYTES) {
    log.info(`Note: Bun was started without ${SERVE_RUNTIME_FLAGS.join(" ")}: a request with over ${maxHeaderSize} bytes of URL and headers gets a bare 431. "bun run start" and the binary pass it.`);
  }
  let signals = 0;
  const stop = (signal: string) => {
    if (signals++ > 0) {
      log.info(`${signal} received again: closing open connections now`);
      void server.closeConnections();
      return;
    }
    log.info(`${signal} received: finishing in-flight requests and saving usage counters (a second signal stops at once)`);
    server.shutdown().then(
      () => process.exit(0),
      (err) => {
        log.error(`shutdown failed: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGHUP", () => void server.reload("SIGHUP"));
}

function openKeyStore(config: Config) {
  const db = openDatabase(config.dbPath);
  const keys = new KeyStore(db, openChangeSignal(signalPath(config.dbPath)));
  return { db, keys, usage: new UsageStore(db, keys) };
}

function keysCommand(args: string[]): void {
  const [sub, ...rest] = args;
  if (sub === "create") {
    const { values } = parse(rest, {
      ...COMMON_FLAGS,
      name: { type: "string" },
      "rate-per-minute": { type: "string" },
      "ip-quota-per-month": { type: "string" },
      json: { type: "boolean" },
    });
    if (values.name === undefined) throw new UsageError("keys create needs --name NAME");
    const rate = values["rate-per-minute"] === undefined ? null : integer(values["rate-per-minute"], "--rate-per-minute", 0);
    const quota = values["ip-quota-per-month"] === undefined ? null : integer(values["ip-quota-per-month"], "--ip-quota-per-month", 0);
    const { db, keys } = openKeyStore(loadConfig(values, process.env));
    let created;
    try {
      created = keys.create({ name: values.name, ratePerMinute: rate, ipQuotaPerMonth: quota });
    } catch (err) {
      if (err instanceof KeyStoreError) throw new UsageError(err.message);
      throw err;
    } finally {
      db.close();
    }
    const { key, secret } = created;
    if (values.json) {
      console.log(JSON.stringify({ ...keyJson(key), key: secret }));
    } else {
      console.log(`Created ${key.id} "${key.name}". This is the only time the key is shown; store it now:`);
      console.log(secret);
    }
    return;
  }
  if (sub === "list") {
    const { values } = parse(rest, { ...COMMON_FLAGS, json: { type: "boolean" } });
    const config = loadConfig(values, process.env);
    const { db, keys, usage } = openKeyStore(config);
    const list = keys.list();
    const totals = usage.usageOf(list.map((k) => k.id), 0, Date.now());
    db.close();
    const rows = list.map((k) => ({ ...keyJson(k), usage: usageJson(totals.get(k.id), k, config) }));
    if (values.json) console.log(JSON.stringify(rows, null, 2));
    else printKeyTable(rows);
    return;
  }
  if (sub === "revoke") {
    const { values, positionals } = parse(rest, COMMON_FLAGS, 1);
    if (positionals.length !== 1) throw new UsageError("keys revoke needs the key's ID or name");
    const { db, keys } = openKeyStore(loadConfig(values, process.env));
    try {
      const key = keys.revoke(positionals[0]);
      console.log(`Revoked ${key.id} "${key.name}" at ${key.revokedAt}; the API refuses it from the next request.`);
    } finally {
      db.close();
    }
    return;
  }
  throw new UsageError(sub === undefined ? "keys needs a subcommand: create, list or revoke" : `unknown keys subcommand "${sub}"`);
}

async function updateCommand(args: string[]): Promise<number> {
  const { values } = parse(args, {
    "data-dir": { type: "string" },
    sources: { type: "string" },
    only: { type: "string" },
    force: { type: "boolean" },
    "max-shrink": { type: "string" },
    "keep-versions": { type: "string" },
    rollback: { type: "boolean" },
    list: { type: "boolean" },
    json: { type: "boolean" },
  });
  const config = loadConfig(values, process.env);
  if (values.rollback) {
    const { current, from } = await withUpdateLock(config.dataDir, () => rollback(config.dataDir));
    console.log(`Dataset version ${current} is current again (rolled back from ${from}); a running server switches within seconds. Roll back again to step further.`);
    return 0;
  }
  if (values.list) {
    printVersions(await listVersions(config.dataDir));
    return 0;
  }
  const maxShrink = values["max-shrink"] === undefined ? 0.5 : Number(values["max-shrink"]);
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
  if (report.version) {
    const pruned = report.pruned.length ? ` Removed ${report.pruned.length} older version${report.pruned.length === 1 ? "" : "s"} beyond --keep-versions ${config.keepVersions}.` : "";
    console.log(`Dataset version ${report.version} is current (${seconds} s). A running server picks it up within seconds.${pruned}`);
  } else {
    console.log(`Nothing changed (${seconds} s); --force rebuilds anyway.`);
  }
  return failed ? 1 : 0;
}

function sourceNames(names: readonly string[]): string {
  if (names.length === 0) return "no source";
  return names.length <= 3 ? names.join(", ") : `${names.slice(0, 2).join(", ")} and ${names.length - 2} more`;
}

/** npm: sources read the packages installed beside the program, when there are any. */
function installedPackages(): string | null {
  const candidates = [resolve("node_modules"), resolve(import.meta.dir, "..", "node_modules")];
  return candidates.find((dir) => existsSync(dir)) ?? null;
}

function printVersions(versions: VersionListing[]): void {
  if (versions.length === 0) {
    console.log("No dataset version yet: run npm install (bundled data) or riskcheck update.");
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

async function adminCommand(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === "unlock") return adminUnlock(rest);
  if (sub !== "set-password") throw new UsageError(sub === undefined ? "admin needs a subcommand: set-password or unlock" : `unknown admin subcommand "${sub}"`);
  const { values } = parse(rest, COMMON_FLAGS);
  const config = loadConfig(values, process.env);
  // One trailing line break is what `echo` or a terminal adds; it is not part of the password.
  const password = (await Bun.stdin.text()).replace(/\r?\n$/, "");
  const problem = checkNewPassword(password);
  if (problem) throw new UsageError(`${problem}; pipe it on standard input, e.g. printf '%s' "$PASSWORD" | riskcheck admin set-password`);
  const db = openDatabase(config.dbPath);
  try {
    await AdminPassword.store(db, password);
  } finally {
    db.close();
  }
  console.log("Dashboard password set; existing dashboard sessions were signed out.");
  if (config.adminPassword) console.log("Note: RISKCHECK_ADMIN_PASSWORD is set and takes precedence while it is.");
}

/** `admin unlock [ADDRESS]`: lifts dashboard sign-in lock-outs, of one address or of all; a running server sees it at once. */
function adminUnlock(args: string[]): void {
  const { values, positionals } = parse(args, COMMON_FLAGS, 1);
  const address = positionals[0] ?? null;
  if (address !== null && parseIpAddress(address) === null) throw new UsageError(`admin unlock takes an IP address, got "${address}"`);
  const db = openDatabase(loadConfig(values, process.env).dbPath);
  let unlocked: string[];
  try {
    unlocked = new SignInThrottle(db).unlock(address, Date.now());
  } finally {
    db.close();
  }
  console.log(
    unlocked.length === 0
      ? `Nothing was locked out${address === null ? "" : ` for ${address}`}; failed sign-ins are forgotten.`
      : `Lifted the dashboard sign-in lock-out of ${unlocked.join(", ")}.`,
  );
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
  };
}

function usageJson(t: KeyUsage | undefined, k: KeyRecord, config: Config) {
  const quota = k.ipQuotaPerMonth ?? config.ipQuotaPerMonth;
  return {
    today: { email: t?.today.email ?? 0, ip: t?.today.ip ?? 0 },
    month: { email: t?.month.email ?? 0, ip: t?.month.ip ?? 0 },
    ip_quota_per_month: quota === 0 ? null : quota,
    ip_quota_left: quota === 0 ? null : Math.max(0, quota - (t?.ipQuotaUsed ?? 0)),
  };
}

function printKeyTable(rows: (ReturnType<typeof keyJson> & { usage: ReturnType<typeof usageJson> })[]): void {
  if (rows.length === 0) {
    console.log(`No keys yet. Create one with: ${selfCommand()} keys create --name my-app`);
    return;
  }
  const table = [
    ["ID", "NAME", "PREFIX", "STATUS", "CREATED", "LAST USED", "TODAY email/ip", "MONTH email/ip", "IP QUOTA LEFT"],
    ...rows.map((r) => [
      r.id,
      r.name,
      r.prefix + "…",
      r.status,
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

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case "serve":
        await serve(args);
        return -1;
      case "keys":
        keysCommand(args);
        return 0;
      case "admin":
        await adminCommand(args);
        return 0;
      case "update":
        return await updateCommand(args);
      case "version":
      case "--version":
        parse(args, {});
        console.log(`riskcheck ${pkg.version}`);
        return 0;
      case "help":
      case "--help":
      case "-h":
        console.log(USAGE);
        return 0;
      default:
        throw new UsageError(command === undefined ? "no command given" : `unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof UsageError || err instanceof SourcesError) {
      console.error(`riskcheck: ${err.message}\n${USAGE}`);
      return 2;
    }
    if (err instanceof DatasetError || err instanceof KeyStoreError || err instanceof Error) {
      console.error(`riskcheck: ${err.message}`);
      return 1;
    }
    console.error(`riskcheck: ${String(err)}`);
    return 1;
  }
}

if (import.meta.main) {
  const code = await main(Bun.argv.slice(2));
  if (code >= 0) process.exit(code);
}
