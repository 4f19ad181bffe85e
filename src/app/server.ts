import { statSync } from "node:fs";
import { resolve } from "node:path";
import { GcPacer, PACER_PERIOD_MS } from "./gc-pacer.ts";
import { type DatasetReloads, datasetReloads } from "./dataset-reloads.ts";
import type { Config } from "./config.ts";
import { lastRefreshedFromNetwork } from "../datasets/freshness.ts";
import { formatDuration } from "../time/duration.ts";
import { DATA_DIR_ORIGIN } from "../ip/dataset-error.ts";
import { type LongTimeout, setLongTimeout } from "../time/long-timeout.ts";
import { loadSnapshot } from "../datasets/load-snapshot.ts";
import { UpdateChild } from "../datasets/refresh-child.ts";
import { RefreshScheduler } from "../datasets/refresh-scheduler.ts";
import { type Snapshot, SnapshotHolder } from "../datasets/snapshot.ts";
import type { StartedLoad } from "../datasets/start-load.ts";
import { createApp, listen } from "../http/app.ts";
import { clientResolver } from "../http/client-info.ts";
import { hint, selfArgv, updateHint, warningCommands } from "./self-command.ts";
import { openStores } from "../stores/open.ts";
import { openAdminPassword, wireApp } from "./wiring.ts";
import { openAuditTrail } from "./audit-wiring.ts";
import { storageFaultOf } from "../faults/storage-fault.ts";
import { serverActor } from "../audit/actors.ts";
import { pruneAuditLog } from "../audit/audit-retention.ts";
import { OverrideExpiries } from "../audit/override-expiries.ts";
import { openMailEvidence } from "./dns-evidence.ts";
import { RuleExpiries } from "../audit/rule-expiries.ts";

export interface Log {
  info(line: string): void;
  error(line: string): void;
}

export interface RunningServer {
  readonly url: string;
  /** Loads the current dataset version off to the side and swaps it in; on failure the old one keeps serving. */
  reload(reason: string): Promise<void>;
  /**
   * Stops accepting, lets in-flight requests finish for up to the drain timeout and
   * then closes their connections, flushes usage, hands back unused quota leases,
   * closes the database. Rejects when the last usage counts could not be saved, so the
   * process exits non-zero.
   */
  shutdown(): Promise<void>;
  /** Closes every connection now; a shutdown under way then finishes without waiting. */
  closeConnections(): Promise<void>;
}

/** How often `current` (and the SQLite file) are looked at: a readlink and a stat, so an update is served within half a second. */
const VERSION_CHECK_MS = 500;
/** Override lines are read again this often: within 10 s, with the interval's jitter, on every instance. */
const OVERRIDE_CHECK_MS = 3_000;
/** The IP override lines' generation is asked this often (one row; the lines are read only when it moved): within 3 s on every instance. */
const IP_OVERRIDE_CHECK_MS = 1_000;
/** The assessment rules' revision is asked this often (one row; the rules are read only when it moved): within 2 s on every instance. */
const POLICY_CHECK_MS = 1_000;
/** Local reports are read again this often (as the email overrides are): within 10 s on every instance. */
const REPORT_CHECK_MS = 3_000;
/** How often expired override lines are looked for; the audit log is pruned every AUDIT_PRUNES_EVERY_CHECKS of these. */
const AUDIT_CHECK_MS = 60_000;
const AUDIT_PRUNES_EVERY_CHECKS = 60;
/** At shutdown the usage flush is tried this often, a second apart, before the counts are given up. */
const FINAL_FLUSH_ATTEMPTS = 5;

/** Why the socket could not be opened, naming the address and the settings that chose it. */
async function listenError(err: unknown, config: Config): Promise<Error> {
  const code = (err as { code?: string }).code;
  const { isIP } = await import("node:net");
  // Bun's errno for a host name that does not resolve is not reliable (EINVAL or a stale ENOENT), so ask the resolver.
  const resolves =
    isIP(config.host) !== 0 ||
    (await Bun.dns.lookup(config.host).then(
      () => true,
      () => false,
    ));
  const reason =
    code === "EADDRINUSE"
      ? "address in use: another process, perhaps another riskcheck, listens there"
      : code === "EADDRNOTAVAIL"
        ? "no interface of this machine has that address"
        : code === "EACCES"
          ? "permission denied"
          : !resolves || code === "EINVAL" || code === "ENOTFOUND"
            ? "not an address this machine can listen on"
            : (err as Error).message;
  return new Error(
    `cannot listen on ${config.host} port ${config.port}: ${reason}; choose another --host / --port (RISKCHECK_HOST / RISKCHECK_PORT)`,
  );
}

/** Saves the last counts; false when every attempt failed and they are lost. */
async function finalFlush(usage: { flush(): Promise<void> }, log: Log): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      await usage.flush();
      return true;
    } catch (err) {
      if (attempt === FINAL_FLUSH_ATTEMPTS) {
        log.error(
          `usage flush failed ${attempt} times; the requests counted since the last flush are not recorded: ${(err as Error).message}`,
        );
        return false;
      }
      log.error(`usage flush failed, retrying: ${(err as Error).message}`);
      await Bun.sleep(1_000);
    }
  }
}

type Wired = Awaited<ReturnType<typeof wireApp>>;
type Stores = Awaited<ReturnType<typeof openStores>>;
interface Refresh {
  readonly scheduler: RefreshScheduler;
  readonly child: UpdateChild;
}

/**
 * `onFatal` is told when the server cannot go on serving correctly (its database file was
 * replaced under it); the caller shuts it down and exits non-zero. `startedLoad`: the
 * first dataset load, when the caller began it already (`startServeLoad`).
 */
export async function startServer(
  config: Config,
  log: Log,
  onFatal: (reason: string) => void = () => {},
  startedLoad?: StartedLoad,
): Promise<RunningServer> {
  if (!statSync(config.dataDir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(
      `${resolve(config.dataDir)}: no such data directory; point --data-dir / RISKCHECK_DATA_DIR at one (${DATA_DIR_ORIGIN})`,
    );
  }
  const loading = loadSnapshot(config.dataDir, config.thresholds, {
    emailRule: config.emailEvidence,
    started: startedLoad,
  });
  // While the datasets load: the database, and the dashboard password (with RISKCHECK_ADMIN_PASSWORD, an argon2id check).
  const opened = openStoresAndPassword(config, log);
  const [{ snapshot, notes }, { stores, audit, password }] = await bothOrClose(loading, opened);
  for (const note of notes) log.info(`datasets: ${note}`);

  const snapshots = new SnapshotHolder(snapshot);
  let refresh: Refresh | null = null;
  const mail = openMailEvidence(config.dns);
  if (mail !== null) {
    const { resolvers, budgetMs } = config.dns;
    const known = snapshot.email.mailServers;
    log.info(
      `email: DNS evidence on, resolvers ${resolvers === "system" ? "of the system" : resolvers!.join(", ")}, ` +
        `budget ${budgetMs} ms; the version knows ${known.hosts.size} mail servers and ${known.addresses.size} ` +
        "addresses of disposable domains",
    );
  }
  const wired = await wireApp({
    stores,
    snapshots,
    limits: {
      rate: { perMinute: config.ratePerMinute, burst: config.rateBurst },
      ipQuotaPerMonth: config.ipQuotaPerMonth,
    },
    password,
    now: Date.now,
    client: clientResolver({ proxies: config.trustedProxies, header: config.trustProxyHeader }),
    logError: log.error,
    refreshState: () => refresh?.scheduler.state() ?? null,
    warningCommands: warningCommands(config),
    privatePaths: { [resolve(config.dataDir)]: "the data directory" },
    metricsToken: config.metricsToken,
    reports: config.reports,
    audit,
    mail,
    overrideLimits: config.overrideLimits,
  });
  const reloads = datasetReloads({
    dataDir: config.dataDir,
    load: async () =>
      (await loadSnapshot(config.dataDir, config.thresholds, { emailRule: config.emailEvidence })).snapshot,
    serving: () => snapshots.current(),
    serve: (next) => snapshots.replace(wired.overrides.withOverrides(next)),
    log,
  });
  refresh = refreshFromNetwork(config, snapshot, reloads, log);
  const stopTimers = startTimers(config, stores, wired, reloads, log, onFatal);
  const server = await listenOrExplain(createApp(wired.deps), config);
  const url = `http://${server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname}:${server.port}`;
  log.info(`riskcheck listening on ${url} (data: ${config.dataDir}, database: ${stores.description})`);
  startRefresh(config, refresh, snapshot, log);
  // With the commands to paste, paths included: /healthz, which anyone may read, names them only.
  for (const warning of wired.deps.dashboard.warnings()) log.info(`datasets: warning: ${warning}`);
  if (!(await wired.keys.list()).some((k) => k.revokedAt === null)) {
    log.info(
      `No API key yet. Create one with: ${hint(config, "keys create --name my-app")} (or in the dashboard at ${url}/dashboard)`,
    );
  }
  if (!(await wired.deps.dashboard.password.isSet())) {
    // The dashboard's page says to look for this line: it names no path to whoever opens it.
    log.info(
      `No dashboard password yet. Set one with: printf '%s' 'your long password' | ${hint(config, "admin set-password")}`,
    );
  }

  const closeConnections = () => server.stop(true);
  let stopping: Promise<void> | null = null;
  const stop = async () => {
    stopTimers();
    refresh?.scheduler.stop();
    refresh?.child.stop();
    await drain(server, config.drainTimeoutMs, log);
    mail?.close();
    await flushAndClose(stores, wired, log);
  };
  return { url, reload: reloads.reload, closeConnections, shutdown: () => (stopping ??= stop()) };
}

/** The database, its audit trail and the dashboard password; the database closed again if the rest fails. */
async function openStoresAndPassword(config: Config, log: Log) {
  const stores = await openStores(config, true);
  try {
    const audit = openAuditTrail(stores, config, (text) => process.stdout.write(text), log.error, true);
    return { stores, audit, password: await openAdminPassword(stores, audit, config.adminPassword) };
  } catch (err) {
    await stores.close();
    throw err;
  }
}

/** Both, or the first failure once the other has settled: opened stores are closed when the datasets fail to load. */
async function bothOrClose<A, B extends { stores: { close(): Promise<void> } }>(
  loading: Promise<A>,
  opened: Promise<B>,
): Promise<[A, B]> {
  const [load, open] = await Promise.allSettled([loading, opened]);
  if (load.status === "fulfilled" && open.status === "fulfilled") return [load.value, open.value];
  if (open.status === "fulfilled") await open.value.stores.close();
  throw load.status === "rejected" ? load.reason : (open as PromiseRejectedResult).reason;
}

/** Serves the app on the configured address, or says why it cannot. */
async function listenOrExplain(app: ReturnType<typeof createApp>, config: Config): Promise<Bun.Server<unknown>> {
  try {
    return listen(app, config.host, config.port);
  } catch (err) {
    throw await listenError(err, config);
  }
}

/** The refresh from the internet, in a child process, unless switched off; not started yet. */
function refreshFromNetwork(config: Config, snapshot: Snapshot, reloads: DatasetReloads, log: Log): Refresh | null {
  if (config.updateEveryMs === null) return null;
  const child = new UpdateChild(
    selfArgv(),
    ["--data-dir", config.dataDir, "--sources", config.sourcesFile, "--keep-versions", String(config.keepVersions)],
    // The database it records in is the server's, however the server was told of it.
    config.databaseUrl === null
      ? { ...process.env, RISKCHECK_DB: config.dbPath, RISKCHECK_DATABASE_URL: "" }
      : { ...process.env, RISKCHECK_DB: "", RISKCHECK_DATABASE_URL: config.databaseUrl },
    Date.now,
    (text) => config.audit.lines === "stdout" && process.stdout.write(text),
  );
  const scheduler = new RefreshScheduler({
    everyMs: config.updateEveryMs,
    lastRefreshedAt: lastRefreshedFromNetwork(snapshot.sources),
    run: async () => {
      const result = await child.run();
      if (result.version) await reloads.installed(result.version, "refresh");
      return result;
    },
    now: Date.now,
    random: Math.random,
    timers: { set: (run, ms) => setLongTimeout(run, ms), clear: (handle) => (handle as LongTimeout).clear() },
    log: log.info,
  });
  return { scheduler, child };
}

/** Starts the refresh, once the server listens, and says when it runs (or how to refresh by hand). */
function startRefresh(config: Config, refresh: Refresh | null, snapshot: Snapshot, log: Log): void {
  if (refresh === null) {
    log.info(
      `datasets: automatic refresh is off (${warningCommands(config).refreshOffBy}); to refresh, run: ${updateHint(config)}`,
    );
    return;
  }
  refresh.scheduler.start();
  const next = refresh.scheduler.state().nextAt;
  const first =
    lastRefreshedFromNetwork(snapshot.sources) === null
      ? " (the data has never been refreshed, so within a minute of start)"
      : "";
  log.info(
    `datasets: this server refreshes its data from the internet by itself, from the sources in ` +
      `${config.sourcesFile}, every ${formatDuration(config.updateEveryMs!)}; next at ` +
      `${next === null ? "-" : new Date(next).toISOString()}${first}. --update-every off ` +
      `(RISKCHECK_UPDATE_EVERY=off) switches it off`,
  );
}

/**
 * What runs while the server serves: the usage flush and idle leases, the override lines and
 * other instances' reports read again, a new dataset version or a replaced database file
 * noticed, the GC pacer. Returns what stops them all.
 */
function startTimers(
  config: Config,
  stores: Stores,
  wired: Wired,
  reloads: DatasetReloads,
  log: Log,
  onFatal: (reason: string) => void,
): () => void {
  const { usage, serving, overrides, reportWatch, policy, policyCounts, storage } = wired;
  /** A background job's failure: logged, and, when the database failed, seen by /healthz. */
  const failed = (what: string) => (err: Error) => {
    const fault = storageFaultOf(err);
    // Every second while the database is away: said once a spell, as the requests' faults are.
    if (fault === null || storage.noted(fault)) log.error(`${what}: ${err.message}`);
  };
  const upkeep = setInterval(async () => {
    await usage.flush().catch(failed("usage flush failed, will retry"));
    await policyCounts.flush(stores.policy).catch(failed("assessment counts: storing them failed, will retry"));
    await serving.tick(Date.now()).catch(failed("quota: giving back idle leases failed, will retry"));
  }, config.usageFlushMs);
  // An override line takes effect, or expires, within this: the operator's word needs no update.
  const overrideWatch = setInterval(() => {
    overrides.refreshEmail().catch(failed("email overrides: reading them failed, the lines in force stay"));
  }, OVERRIDE_CHECK_MS);
  const ipOverrideWatch = setInterval(() => {
    overrides.refreshIp().catch(failed("IP overrides: reading them failed, the lines in force stay"));
  }, IP_OVERRIDE_CHECK_MS);
  const policyWatch = setInterval(() => {
    policy.refresh().catch(failed("policy: reading the rules failed, the policy in force stays"));
  }, POLICY_CHECK_MS);
  // Reports accepted by other instances, and deletions from anywhere, reach this one's verdicts within 10 s.
  const reportSync = setInterval(() => {
    reportWatch.refresh().catch(failed("reports: reading them failed, the counts in force stay"));
  }, REPORT_CHECK_MS);
  // `riskcheck update` swaps the data/current link; notice it without a signal too.
  const versionWatch = setInterval(() => {
    if (reloads.changed()) void reloads.reload("new dataset version");
    const replaced = stores.replacedOnDisk();
    if (replaced) {
      clearInterval(versionWatch);
      onFatal(
        `${replaced}: revocations and keys made by the CLI now go to the new file, which this server does not ` +
          `see; stopping, restart riskcheck to serve from it`,
      );
    }
  }, VERSION_CHECK_MS);
  const server = wired.audit.as(serverActor());
  const expiries = new OverrideExpiries(overrides.watches, server, config.audit.retentionMs);
  const ruleExpiries = new RuleExpiries(
    async () => (await stores.policy.read()).rules,
    server,
    config.audit.retentionMs,
  );
  let auditChecks = 0;
  // Expired override lines are recorded within a minute; the log is pruned hourly, and first a minute after start.
  const auditUpkeep = setInterval(async () => {
    await expiries.check(Date.now()).catch(failed("audit: recording expired override lines failed, will retry"));
    await ruleExpiries.check(Date.now()).catch(failed("audit: recording expired rules failed, will retry"));
    if (auditChecks++ % AUDIT_PRUNES_EVERY_CHECKS === 0)
      await pruneAuditLog(server, config.audit.retentionMs, Date.now()).catch(
        failed("audit: pruning the log failed, will retry"),
      );
  }, AUDIT_CHECK_MS);
  const pacer = new GcPacer(wired.deps.traffic);
  const pacing = setInterval(() => pacer.tick(), PACER_PERIOD_MS);
  return () => {
    for (const timer of [
      upkeep,
      reportSync,
      versionWatch,
      overrideWatch,
      ipOverrideWatch,
      policyWatch,
      auditUpkeep,
      pacing,
    ])
      clearInterval(timer);
  };
}

/** Stops accepting and lets in-flight requests finish for up to `drainTimeoutMs`, then closes their connections. */
async function drain(server: Bun.Server<unknown>, drainTimeoutMs: number, log: Log): Promise<void> {
  let deadline: Timer | undefined;
  const timedOut = new Promise<true>((resolve) => (deadline = setTimeout(resolve, drainTimeoutMs, true)));
  if (await Promise.race([server.stop(false), timedOut])) {
    const cutOff = server.pendingRequests;
    if (cutOff > 0)
      log.error(
        `${cutOff} request(s) still running after ${drainTimeoutMs} ms (RISKCHECK_DRAIN_TIMEOUT_MS); closing their connections`,
      );
    await server.stop(true);
  }
  clearTimeout(deadline);
}

/** Saves the last usage counts, hands back unused quota leases, closes the database; throws when the counts were lost. */
async function flushAndClose(stores: Stores, { usage, serving, policyCounts }: Wired, log: Log): Promise<void> {
  const flushed = await finalFlush(
    {
      flush: async () => {
        await usage.flush();
        await policyCounts.flush(stores.policy);
      },
    },
    log,
  );
  await serving
    .release()
    .catch((err: Error) =>
      log.error(`quota: giving back unused leases failed; they stay counted this month: ${err.message}`),
    );
  await stores.close();
  if (!flushed) throw new Error("the usage counted since the last flush was lost (see above)");
}
