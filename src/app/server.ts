import { statSync } from "node:fs";
import { isIP } from "node:net";
import { resolve } from "node:path";
import { GcPacer, PACER_PERIOD_MS } from "./gc-pacer.ts";
import type { Config } from "./config.ts";
import { lastRefreshedFromNetwork } from "../datasets/freshness.ts";
import { formatDuration } from "../time/duration.ts";
import { DATA_DIR_ORIGIN } from "../ip/dataset-error.ts";
import { type LongTimeout, setLongTimeout } from "../time/long-timeout.ts";
import { loadSnapshot } from "../datasets/load-snapshot.ts";
import { UpdateChild } from "../datasets/refresh-child.ts";
import { RefreshScheduler } from "../datasets/refresh-scheduler.ts";
import { SnapshotHolder } from "../datasets/snapshot.ts";
import type { StartedLoad } from "../datasets/start-load.ts";
import { currentVersion } from "../datasets/versions.ts";
import { createApp, listen } from "../http/app.ts";
import { clientResolver } from "../http/client-info.ts";
import { hint, selfArgv, updateHint } from "./self-command.ts";
import { openStores } from "../stores/open.ts";
import { wireApp } from "./wiring.ts";

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
/** Local reports are read again this often (as the email overrides are): within 10 s on every instance. */
const REPORT_CHECK_MS = 3_000;
/** At shutdown the usage flush is tried this often, a second apart, before the counts are given up. */
const FINAL_FLUSH_ATTEMPTS = 5;

/** Why the socket could not be opened, naming the address and the settings that chose it. */
async function listenError(err: unknown, config: Config): Promise<Error> {
  const code = (err as { code?: string }).code;
  // Bun's errno for a host name that does not resolve is not reliable (EINVAL or a stale ENOENT), so ask the resolver.
  const resolves = isIP(config.host) !== 0 || (await Bun.dns.lookup(config.host).then(() => true, () => false));
  const reason =
    code === "EADDRINUSE" ? "address in use: another process, perhaps another riskcheck, listens there"
    : code === "EADDRNOTAVAIL" ? "no interface of this machine has that address"
    : code === "EACCES" ? "permission denied"
    : !resolves || code === "EINVAL" || code === "ENOTFOUND" ? "not an address this machine can listen on"
    : (err as Error).message;
  return new Error(`cannot listen on ${config.host} port ${config.port}: ${reason}; choose another --host / --port (RISKCHECK_HOST / RISKCHECK_PORT)`);
}

/** Saves the last counts; false when every attempt failed and they are lost. */
async function finalFlush(usage: { flush(): Promise<void> }, log: Log): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      await usage.flush();
      return true;
    } catch (err) {
      if (attempt === FINAL_FLUSH_ATTEMPTS) {
        log.error(`usage flush failed ${attempt} times; the requests counted since the last flush are not recorded: ${(err as Error).message}`);
        return false;
      }
      log.error(`usage flush failed, retrying: ${(err as Error).message}`);
      await Bun.sleep(1_000);
    }
  }
}

/**
 * `onFatal` is told when the server cannot go on serving correctly (its database file was
 * replaced under it); the caller shuts it down and exits non-zero. `startedLoad`: the
 * first dataset load, when the caller began it already (`startServeLoad`).
 */
export async function startServer(config: Config, log: Log, onFatal: (reason: string) => void = () => {}, startedLoad?: StartedLoad): Promise<RunningServer> {
  if (!statSync(config.dataDir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(`${resolve(config.dataDir)}: no such data directory; point --data-dir / RISKCHECK_DATA_DIR at one (${DATA_DIR_ORIGIN})`);
  }
  const { snapshot, notes } = await loadSnapshot(config.dataDir, config.thresholds, { emailRule: config.emailEvidence, started: startedLoad });
  for (const note of notes) log.info(`datasets: ${note}`);

  const stores = await openStores(config, true);
  const snapshots = new SnapshotHolder(snapshot);
  let refresh: { scheduler: RefreshScheduler; child: UpdateChild } | null = null;
  const { deps, keys, usage, serving, emailOverrides, reportWatch } = await wireApp({
    stores,
    snapshots,
    limits: { rate: { perMinute: config.ratePerMinute, burst: config.rateBurst }, ipQuotaPerMonth: config.ipQuotaPerMonth },
    adminPassword: config.adminPassword,
    now: Date.now,
    client: clientResolver(config.trustProxy),
    setPasswordCommand: hint(config, "admin set-password"),
    logError: log.error,
    refreshState: () => refresh?.scheduler.state() ?? null,
    metricsToken: config.metricsToken,
    reports: config.reports,
  });
  const app = createApp(deps);

  const flush = async () => {
    try {
      await usage.flush();
    } catch (err) {
      log.error(`usage flush failed, will retry: ${(err as Error).message}`);
    }
  };
  const upkeep = setInterval(async () => {
    await flush();
    await serving.tick(Date.now()).catch((err: Error) => log.error(`quota: giving back idle leases failed, will retry: ${err.message}`));
  }, config.usageFlushMs);

  // An override line takes effect, or expires, within this: the operator's word needs no update.
  const overrideWatch = setInterval(() => {
    emailOverrides.refresh().catch((err: Error) => log.error(`email overrides: reading them failed, the lines in force stay: ${err.message}`));
  }, OVERRIDE_CHECK_MS);
  // Reports accepted by other instances, and deletions from anywhere, reach this one's verdicts within 10 s.
  const reportSync = setInterval(() => {
    reportWatch.refresh().catch((err: Error) => log.error(`reports: reading them failed, the counts in force stay: ${err.message}`));
  }, REPORT_CHECK_MS);

  let loadedVersion = currentVersion(config.dataDir);
  let reloading: Promise<void> | null = null;
  const reload = (reason: string): Promise<void> =>
    (reloading ??= (async () => {
      const version = currentVersion(config.dataDir);
      try {
        const next = await loadSnapshot(config.dataDir, config.thresholds, { emailRule: config.emailEvidence });
        snapshots.replace(emailOverrides.withOverrides(next.snapshot));
        loadedVersion = next.snapshot.version || version;
        log.info(`datasets: loaded version ${next.snapshot.version || version} (${reason})`);
      } catch (err) {
        loadedVersion = version; // not retried until the version changes again
        log.error(`datasets: reload failed, still serving ${snapshots.current().version}: ${(err as Error).message}`);
      } finally {
        reloading = null;
      }
    })());
  // `riskcheck update` swaps the data/current link; notice it without a signal too.
  const versionWatch = setInterval(() => {
    if (currentVersion(config.dataDir) !== loadedVersion) void reload("new dataset version");
    const replaced = stores.replacedOnDisk();
    if (replaced) {
      clearInterval(versionWatch);
      onFatal(`${replaced}: revocations and keys made by the CLI now go to the new file, which this server does not see; stopping, restart riskcheck to serve from it`);
    }
  }, VERSION_CHECK_MS);

  if (config.updateEveryMs !== null) {
    const child = new UpdateChild(
      selfArgv(),
      ["--data-dir", config.dataDir, "--sources", config.sourcesFile, "--keep-versions", String(config.keepVersions)],
      process.env,
      Date.now,
    );
    const scheduler = new RefreshScheduler({
      everyMs: config.updateEveryMs,
      lastRefreshedAt: lastRefreshedFromNetwork(snapshot.sources),
      run: async () => {
        const result = await child.run();
        if (result.version) await reload("refresh");
        return result;
      },
      now: Date.now,
      random: Math.random,
      timers: { set: (run, ms) => setLongTimeout(run, ms), clear: (handle) => (handle as LongTimeout).clear() },
      log: log.info,
    });
    refresh = { scheduler, child };
  }

  const pacer = new GcPacer(deps.traffic);
  const pacing = setInterval(() => pacer.tick(), PACER_PERIOD_MS);
  let server: Bun.Server<unknown>;
  try {
    server = listen(app, config.host, config.port);
  } catch (err) {
    throw await listenError(err, config);
  }
  const url = `http://${server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname}:${server.port}`;
  log.info(`riskcheck listening on ${url} (data: ${config.dataDir}, database: ${stores.description})`);
  if (refresh) {
    refresh.scheduler.start();
    const next = refresh.scheduler.state().nextAt;
    const first = lastRefreshedFromNetwork(snapshot.sources) === null ? " (the data has never been refreshed, so within a minute of start)" : "";
    log.info(
      `datasets: this server refreshes its data from the internet by itself, from the sources in ${config.sourcesFile}, every ${formatDuration(config.updateEveryMs!)}; next at ${next === null ? "-" : new Date(next).toISOString()}${first}. --update-every off (RISKCHECK_UPDATE_EVERY=off) switches it off`,
    );
  } else {
    log.info(`datasets: automatic refresh is off (RISKCHECK_UPDATE_EVERY=off); to refresh, run: ${updateHint(config)}`);
  }
  if (!(await keys.list()).some((k) => k.revokedAt === null)) {
    log.info(`No API key yet. Create one with: ${hint(config, "keys create --name my-app")} (or in the dashboard at ${url}/dashboard)`);
  }

  const closeConnections = () => server.stop(true);
  let stopping: Promise<void> | null = null;
  return {
    url,
    reload,
    closeConnections,
    shutdown: () =>
      (stopping ??= (async () => {
        clearInterval(upkeep);
        clearInterval(reportSync);
        clearInterval(versionWatch);
        clearInterval(overrideWatch);
        clearInterval(pacing);
        refresh?.scheduler.stop();
        refresh?.child.stop();
        let deadline: Timer | undefined;
        const timedOut = new Promise<true>((resolve) => (deadline = setTimeout(resolve, config.drainTimeoutMs, true)));
        if (await Promise.race([server.stop(false), timedOut])) {
          const cutOff = server.pendingRequests;
          if (cutOff > 0) log.error(`${cutOff} request(s) still running after ${config.drainTimeoutMs} ms (RISKCHECK_DRAIN_TIMEOUT_MS); closing their connections`);
          await closeConnections();
        }
        clearTimeout(deadline);
        const flushed = await finalFlush(usage, log);
        await serving.release().catch((err: Error) => log.error(`quota: giving back unused leases failed; they stay counted this month: ${err.message}`));
        await stores.close();
        if (!flushed) throw new Error("the usage counted since the last flush was lost (see above)");
      })()),
  };
}
