import { buildDomainLists } from "../../src/email/domain-lists.ts";
import { SnapshotHolder, type Snapshot } from "../../src/datasets/snapshot.ts";
import { openDatabase } from "../../src/db.ts";
import { createApp } from "../../src/http/app.ts";
import { inMemoryChangeSignal } from "../../src/keys/change-signal.ts";
import { KeyAuthenticator } from "../../src/keys/key-authenticator.ts";
import { KeyStore } from "../../src/keys/key-store.ts";
import { UsageRecorder } from "../../src/keys/usage-recorder.ts";
import { UsageStore } from "../../src/keys/usage-store.ts";
import { MonthlyQuota } from "../../src/limits/monthly-quota.ts";
import { RateLimiter } from "../../src/limits/rate-limiter.ts";

export const FIXTURE_EMAIL_LISTS = {
  disposable: ["mailinator.com", "tempmail.dev", "edu.pl", "пример.com"],
  disposableWildcard: ["33mail.com"],
  free: ["gmail.com", "yahoo.com", "mailinator.com"],
  allow: ["duck.com"],
};

export function testSnapshot(): Snapshot {
  return { email: buildDomainLists(FIXTURE_EMAIL_LISTS).lists, datasets: [], loadedAt: "2026-11-23T00:00:00.000Z" };
}

export interface TestAppOptions {
  ratePerMinute?: number;
  rateBurst?: number;
  ipQuotaPerMonth?: number;
  snapshot?: Snapshot;
}

/** The real app over an in-memory database, with a clock the test moves. */
export function createTestApp(options: TestAppOptions = {}) {
  const db = openDatabase(":memory:");
  const signal = inMemoryChangeSignal();
  const keys = new KeyStore(db, signal);
  const usageStore = new UsageStore(db, keys);
  const usage = new UsageRecorder(usageStore);
  const clock = { now: Date.UTC(2026, 10, 23, 12) };
  const errors: string[] = [];
  const app = createApp({
    authenticator: new KeyAuthenticator(keys, db, signal, () => clock.now),
    limits: {
      settings: {
        rate: { perMinute: options.ratePerMinute ?? 6000, burst: options.rateBurst ?? 1000 },
        ipQuotaPerMonth: options.ipQuotaPerMonth ?? 0,
      },
      rateLimiter: new RateLimiter(),
      quota: new MonthlyQuota(new Map(), clock.now),
    },
    usage,
    snapshots: new SnapshotHolder(options.snapshot ?? testSnapshot()),
    now: () => clock.now,
    startedMs: clock.now,
    logError: (line) => errors.push(line),
  });
  const request = (path: string, init: { key?: string; headers?: Record<string, string>; method?: string } = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`;
    return app.handle(new Request(`http://riskcheck.test${path}`, { method: init.method ?? "GET", headers }));
  };
  const newKey = (name = "test", extra: { ratePerMinute?: number; ipQuotaPerMonth?: number } = {}) => keys.create({ name, ...extra });
  return { app, db, keys, usage, usageStore, clock, errors, request, newKey };
}
