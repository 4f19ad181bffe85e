import type { Config } from "./config.ts";
import { loadSnapshot } from "./datasets/load-snapshot.ts";
import { SnapshotHolder } from "./datasets/snapshot.ts";
import { openDatabase } from "./db.ts";
import { createApp } from "./http/app.ts";
import { openChangeSignal } from "./keys/change-signal.ts";
import { KeyAuthenticator } from "./keys/key-authenticator.ts";
import { KeyStore } from "./keys/key-store.ts";
import { UsageRecorder } from "./keys/usage-recorder.ts";
import { UsageStore } from "./keys/usage-store.ts";
import { MonthlyQuota } from "./limits/monthly-quota.ts";
import { RateLimiter } from "./limits/rate-limiter.ts";

export interface Log {
  info(line: string): void;
  error(line: string): void;
}

export interface RunningServer {
  readonly url: string;
  /** Stops accepting, lets in-flight requests finish, flushes usage, closes the database. */
  shutdown(): Promise<void>;
}

export function signalPath(dbPath: string): string {
  return `${dbPath}-signal`;
}

export async function startServer(config: Config, log: Log, createKeyHint: string): Promise<RunningServer> {
  const startedMs = Date.now();
  const { snapshot, notes } = await loadSnapshot(config.dataDir);
  for (const note of notes) log.info(`datasets: ${note}`);

  const db = openDatabase(config.dbPath);
  const keysChanged = openChangeSignal(signalPath(config.dbPath));
  const keys = new KeyStore(db, keysChanged);
  const usageStore = new UsageStore(db, keys);
  const usage = new UsageRecorder(usageStore);
  const snapshots = new SnapshotHolder(snapshot);
  const app = createApp({
    authenticator: new KeyAuthenticator(keys, db, keysChanged),
    limits: {
      settings: { rate: { perMinute: config.ratePerMinute, burst: config.rateBurst }, ipQuotaPerMonth: config.ipQuotaPerMonth },
      rateLimiter: new RateLimiter(),
      quota: new MonthlyQuota(usageStore.ipQuotaUsedThisMonth(startedMs), startedMs),
    },
    usage,
    snapshots,
    now: Date.now,
    startedMs,
    logError: log.error,
  });

  const flush = () => {
    try {
      usage.flush();
    } catch (err) {
      log.error(`usage flush failed, will retry: ${(err as Error).message}`);
    }
  };
  const flusher = setInterval(flush, config.usageFlushMs);

  const server = app.listen({ hostname: config.host, port: config.port }).server!;
  const url = `http://${server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname}:${server.port}`;
  log.info(`riskcheck listening on ${url} (data: ${config.dataDir}, database: ${config.dbPath})`);
  if (!keys.list().some((k) => k.revokedAt === null)) {
    log.info(`No API key yet. Create one with: ${createKeyHint} keys create --name my-app`);
  }

  let stopping: Promise<void> | null = null;
  return {
    url,
    shutdown: () =>
      (stopping ??= (async () => {
        clearInterval(flusher);
        await server.stop(false);
        flush();
        db.close();
      })()),
  };
}
