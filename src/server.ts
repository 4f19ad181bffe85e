import { CollectionPacer, PACER_PERIOD_MS } from "./collection-pacer.ts";
import type { Config } from "./config.ts";
import { loadSnapshot } from "./datasets/load-snapshot.ts";
import { SnapshotHolder } from "./datasets/snapshot.ts";
import { currentVersion } from "./datasets/versions.ts";
import { openDatabase } from "./db.ts";
import { createApp } from "./http/app.ts";
import { clientInfoResolver } from "./http/client-info.ts";
import { openChangeSignal } from "./keys/change-signal.ts";
import { lastUpdateSuccess } from "./metrics/last-update-success.ts";
import { wireApp } from "./wiring.ts";

export interface Log {
  info(line: string): void;
  error(line: string): void;
}

export interface RunningServer {
  readonly url: string;
  /** Loads the current dataset version off to the side and swaps it in; on failure the old one keeps serving. */
  reload(reason: string): Promise<void>;
  /** Stops accepting, lets in-flight requests finish, flushes usage, closes the database. */
  shutdown(): Promise<void>;
}

export function signalPath(dbPath: string): string {
  return `${dbPath}-signal`;
}

const VERSION_CHECK_MS = 2_000;

/** Upload limit for every request: the API takes none and the dashboard's forms are tiny. */
const MAX_REQUEST_BODY_BYTES = 64 * 1024;

export async function startServer(config: Config, log: Log, cliCommand: string): Promise<RunningServer> {
  const { snapshot, notes } = await loadSnapshot(config.dataDir, config.thresholds);
  for (const note of notes) log.info(`datasets: ${note}`);

  const db = openDatabase(config.dbPath);
  const snapshots = new SnapshotHolder(snapshot);
  const { deps, keys, usage } = await wireApp({
    db,
    keysChanged: openChangeSignal(signalPath(config.dbPath)),
    snapshots,
    limits: { rate: { perMinute: config.ratePerMinute, burst: config.rateBurst }, ipQuotaPerMonth: config.ipQuotaPerMonth },
    adminPassword: config.adminPassword,
    now: Date.now,
    clientInfo: clientInfoResolver(config.trustProxy),
    cliCommand,
    logError: log.error,
    metricsToken: config.metricsToken,
    lastUpdateSuccess: () => lastUpdateSuccess(config.dataDir),
  });
  const app = createApp(deps);

  const flush = () => {
    try {
      usage.flush();
    } catch (err) {
      log.error(`usage flush failed, will retry: ${(err as Error).message}`);
    }
  };
  const flusher = setInterval(flush, config.usageFlushMs);

  let loadedVersion = currentVersion(config.dataDir);
  let reloading: Promise<void> | null = null;
  const reload = (reason: string): Promise<void> =>
    (reloading ??= (async () => {
      const version = currentVersion(config.dataDir);
      try {
        const next = await loadSnapshot(config.dataDir, config.thresholds);
        snapshots.replace(next.snapshot);
        loadedVersion = version;
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
  }, VERSION_CHECK_MS);

  const pacer = new CollectionPacer(deps.traffic);
  const pacing = setInterval(() => pacer.tick(), PACER_PERIOD_MS);
  const server = app.listen({ hostname: config.host, port: config.port, maxRequestBodySize: MAX_REQUEST_BODY_BYTES, development: false }).server!;
  const url = `http://${server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname}:${server.port}`;
  log.info(`riskcheck listening on ${url} (data: ${config.dataDir}, database: ${config.dbPath})`);
  if (!keys.list().some((k) => k.revokedAt === null)) {
    log.info(`No API key yet. Create one with: ${cliCommand} keys create --name my-app (or in the dashboard at ${url}/dashboard)`);
  }

  let stopping: Promise<void> | null = null;
  return {
    url,
    reload,
    shutdown: () =>
      (stopping ??= (async () => {
        clearInterval(flusher);
        clearInterval(versionWatch);
        clearInterval(pacing);
        await server.stop(false);
        flush();
        db.close();
      })()),
  };
}
