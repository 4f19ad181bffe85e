import type { Database } from "bun:sqlite";
import { TrafficCounter } from "./collection-pacer.ts";
import { datasetWarnings } from "./datasets/freshness.ts";
import { lastUpdateSuccess } from "./metrics/last-update-success.ts";
import type { RefreshState } from "./datasets/refresh-scheduler.ts";
import type { SnapshotHolder } from "./datasets/snapshot.ts";
import { AdminPassword } from "./dashboard/admin-password.ts";
import { SessionStore } from "./dashboard/sessions.ts";
import { SignInThrottle } from "./dashboard/sign-in-throttle.ts";
import type { AppDeps } from "./http/app.ts";
import type { LimitSettings } from "./http/admission.ts";
import type { ChangeSignal } from "./keys/change-signal.ts";
import { KeyAuthenticator } from "./keys/key-authenticator.ts";
import { KeyStore } from "./keys/key-store.ts";
import { UsageRecorder } from "./keys/usage-recorder.ts";
import { UsageStore } from "./keys/usage-store.ts";
import { MonthlyQuota } from "./limits/monthly-quota.ts";
import { RateLimiter } from "./limits/rate-limiter.ts";
import { RequestMetrics } from "./metrics/request-metrics.ts";

export interface WiringInput {
  db: Database;
  keysChanged: ChangeSignal;
  snapshots: SnapshotHolder;
  limits: LimitSettings;
  adminPassword: string | null;
  now: () => number;
  client: AppDeps["client"];
  cliCommand: string;
  logError: (line: string) => void;
  /** The automatic refresh's state; null when it is off. */
  refreshState: () => RefreshState | null;
  /** When set, GET /metrics needs it as a Bearer token. */
  metricsToken: string | null;
}

/** Builds every service the app needs over one database; the server and the tests share it. */
export async function wireApp(input: WiringInput) {
  const { db, now } = input;
  const startedMs = now();
  const keys = new KeyStore(db, input.keysChanged);
  const usageStore = new UsageStore(db, keys);
  const usage = new UsageRecorder(usageStore);
  const warnings = () => datasetWarnings(input.snapshots.current(), input.refreshState(), now());
  const deps: AppDeps = {
    authenticator: new KeyAuthenticator(keys, db, input.keysChanged, now),
    limits: {
      settings: input.limits,
      rateLimiter: new RateLimiter(),
      quota: new MonthlyQuota(usageStore.ipQuotaUsedThisMonth(startedMs), startedMs),
    },
    usage,
    snapshots: input.snapshots,
    dashboard: {
      keys,
      usage,
      usageStore,
      password: await AdminPassword.open(db, input.adminPassword),
      sessions: new SessionStore(db),
      throttle: new SignInThrottle(db),
      defaultIpQuota: input.limits.ipQuotaPerMonth,
      cliCommand: input.cliCommand,
      now,
      warnings,
    },
    client: input.client,
    now,
    startedMs,
    logError: input.logError,
    traffic: new TrafficCounter(),
    warnings,
    refreshState: input.refreshState,
    metrics: {
      requests: new RequestMetrics(),
      snapshots: input.snapshots,
      keys,
      lastUpdateSuccess: () => lastUpdateSuccess(input.refreshState(), input.snapshots.current().sources),
      token: input.metricsToken,
      startedMs,
      now,
    },
  };
  return { deps, keys, usage, usageStore };
}
