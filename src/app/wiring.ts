import { TrafficCounter } from "../metrics/traffic-counter.ts";
import { GENERIC_WARNING_COMMANDS, type WarningCommands, datasetWarnings } from "../datasets/freshness.ts";
import { lastUpdateSuccess } from "../metrics/last-update-success.ts";
import type { RefreshState } from "../datasets/refresh-scheduler.ts";
import { type Snapshot, type SnapshotHolder, withOverrides as snapshotWithOverrides } from "../datasets/snapshot.ts";
import { PolicyCounts } from "../assess/policy-counts.ts";
import { PolicyWatch } from "../assess/policy-watch.ts";
import { OverrideWatch } from "../email/override-watch.ts";
import { ipOverrideWatch } from "../ip/overrides/ip-override-watch.ts";
import type { OverrideLimits } from "../email/overrides.ts";
import { StorageHealth } from "../faults/storage-health.ts";
import { ipAnswerJson } from "../ip/answer/ip-answer.ts";
import type { IpAnswer } from "../ip/answer/ip-answer-schema.ts";
import { AdminPassword } from "../dashboard/admin-password.ts";
import type { AppDeps } from "../http/app.ts";
import type { LimitSettings } from "../http/admission.ts";
import { KeyAuthenticator } from "../keys/key-authenticator.ts";
import { UsageRecorder } from "../keys/usage-recorder.ts";
import { RateLimiter } from "../limits/rate-limiter.ts";
import { BatchItemMetrics } from "../metrics/batch-items.ts";
import { RequestMetrics } from "../metrics/request-metrics.ts";
import { ReportOutcomes } from "../metrics/report-outcomes.ts";
import { LocalReportIndex } from "../reports/local-report-index.ts";
import type { ReportSettings } from "../reports/report.ts";
import { ReportWatch } from "../reports/report-watch.ts";
import type { StoreWrites, Stores } from "../stores/stores.ts";
import { serverActor } from "../audit/actors.ts";
import type { AuditTrail } from "../audit/audit-trail.ts";
import { recordSchemaChange } from "./audit-wiring.ts";
import type { MailEvidence } from "../email/mail-evidence.ts";

export interface WiringInput {
  stores: Stores;
  snapshots: SnapshotHolder;
  limits: LimitSettings;
  /** The dashboard's password (`openAdminPassword`). */
  password: AdminPassword;
  now: () => number;
  client: AppDeps["client"];
  logError: (line: string) => void;
  /** The automatic refresh's state; null when it is off. */
  refreshState: () => RefreshState | null;
  /**
   * The command lines the dataset warnings name, as this program was run, for the log and the
   * dashboard; by their names alone when left out, and always on /healthz, which anyone may read.
   */
  warningCommands?: WarningCommands;
  /** The install's paths (the data directory), said as their names on /healthz. */
  privatePaths?: Readonly<Record<string, string>>;
  /** When set, GET /metrics needs it as a Bearer token. */
  metricsToken: string | null;
  reports: ReportSettings;
  /** Where administrative acts are recorded. */
  audit: AuditTrail<StoreWrites>;
  /** DNS evidence for the email check (a resolver is configured); none when absent. */
  mail?: MailEvidence | null;
  /** How many override lines the server keeps. */
  overrideLimits: OverrideLimits;
}

/**
 * The dashboard's password: RISKCHECK_ADMIN_PASSWORD when set (stored, and the storing
 * recorded as the server's act, when the stored hash is not its), else the stored one. An
 * argon2id check when the variable is set: the server starts it while its datasets load.
 */
export function openAdminPassword(
  stores: Stores,
  audit: AuditTrail<StoreWrites>,
  environmentPassword: string | null,
): Promise<AdminPassword> {
  const server = audit.as(serverActor());
  return AdminPassword.open(stores.adminPassword, environmentPassword, (how) =>
    server.record(`admin_password.${how}`, "dashboard", {
      detail: "from RISKCHECK_ADMIN_PASSWORD; every dashboard session was signed out",
    }),
  );
}

/** Builds every service the app needs over one database's stores; the server and the tests share it. */
export async function wireApp(input: WiringInput) {
  const { stores, now } = input;
  const startedMs = now();
  const { keys } = stores;
  const { audit } = input;
  await recordSchemaChange(stores, audit.as(serverActor()));
  const usage = new UsageRecorder(stores.usage);
  const serving = await stores.serving({ now, logError: input.logError });
  const warnings = () => datasetWarnings(input.snapshots.current(), input.refreshState(), now(), input.warningCommands);
  /**
   * For /healthz, which needs no key: the commands by their names alone (the flag that stopped the
   * refresh as it is), and no path of the install.
   */
  const publicCommands = {
    ...GENERIC_WARNING_COMMANDS,
    refreshOffBy: input.warningCommands?.refreshOffBy ?? GENERIC_WARNING_COMMANDS.refreshOffBy,
  };
  const publicWarnings = () =>
    datasetWarnings(input.snapshots.current(), input.refreshState(), now(), publicCommands).map((line) =>
      Object.entries(input.privatePaths ?? {}).reduce((text, [path, name]) => text.replaceAll(path, name), line),
    );
  const emailWatch = new OverrideWatch(stores.emailOverrides, (line) => line.domain, now);
  const ip = ipOverrideWatch(stores.ipOverrides, now);
  /** The snapshot with the override lines in force, which the watches change in place: every snapshot served passes through here. */
  const withOverrides = (snapshot: Snapshot): Snapshot =>
    snapshotWithOverrides(snapshot, { email: emailWatch.active, ip: ip.lines });
  await Promise.all([emailWatch.refresh(), ip.watch.refresh()]);
  input.snapshots.replace(withOverrides(input.snapshots.current()));
  const overrides = {
    withOverrides,
    watches: { email: emailWatch, ip: ip.watch },
    refreshEmail: async () => void (await emailWatch.refresh()),
    refreshIp: async () => void (await ip.watch.refresh()),
  };
  const policy = new PolicyWatch(stores.policy, now);
  await policy.refresh();
  const policyCounts = new PolicyCounts();
  const storage = new StorageHealth(now);
  const batchItems = new BatchItemMetrics();
  const authenticator = new KeyAuthenticator(serving.keys, now);
  const reportIndex = new LocalReportIndex(input.reports.windowMs, now, (keyId) => authenticator.isActive(keyId));
  const reports = {
    store: stores.reports,
    index: reportIndex,
    settings: input.reports,
    outcomes: new ReportOutcomes(),
  };
  const reportWatch = new ReportWatch(stores.reports, reportIndex, input.reports, now);
  await reportWatch.refresh();
  const deps: AppDeps = {
    authenticator,
    limits: {
      settings: input.limits,
      rateLimiter: new RateLimiter(),
      quota: serving.quota,
    },
    usage,
    snapshots: input.snapshots,
    dashboard: {
      keys,
      usage,
      usageStore: stores.usage,
      password: input.password,
      sessions: stores.sessions,
      throttle: stores.signInThrottle,
      serverLimits: { ratePerMinute: input.limits.rate.perMinute, ipQuotaPerMonth: input.limits.ipQuotaPerMonth },
      now,
      warnings,
      emailOverrides: stores.emailOverrides,
      refreshOverrides: overrides.refreshEmail,
      ipOverrides: stores.ipOverrides,
      refreshIpOverrides: overrides.refreshIp,
      overrideLimits: input.overrideLimits,
      checkAddress: (ip) => {
        const snapshot = input.snapshots.current();
        return JSON.parse(ipAnswerJson(snapshot.ip, ip, snapshot.sources, reportIndex)) as IpAnswer;
      },
      ipAllowlistFile: () => input.snapshots.current().ip.allowlistFile,
      reports: {
        store: stores.reports,
        index: reportIndex,
        windowMs: input.reports.windowMs,
        refresh: () => reportWatch.refresh(),
      },
      policy: { store: stores.policy, refresh: () => policy.refresh() },
      audit,
    },
    client: input.client,
    now,
    startedMs,
    logError: input.logError,
    traffic: new TrafficCounter(),
    batchItems,
    reports,
    localReports: reportIndex,
    policy,
    policyCounts,
    policyStore: stores.policy,
    overrides: {
      email: stores.emailOverrides,
      ip: stores.ipOverrides,
      refreshEmail: overrides.refreshEmail,
      refreshIp: overrides.refreshIp,
      limits: input.overrideLimits,
    },
    storage,
    warnings: publicWarnings,
    audit,
    refreshState: input.refreshState,
    mail: input.mail ?? null,
    metrics: {
      mail: input.mail ?? null,
      requests: new RequestMetrics(),
      batchItems,
      reports: reports.outcomes,
      policyCounts,
      snapshots: input.snapshots,
      keys,
      lastUpdateSuccess: () => lastUpdateSuccess(input.refreshState(), input.snapshots.current().sources),
      token: input.metricsToken,
      startedMs,
      now,
      storage,
    },
  };
  return { deps, keys, usage, serving, overrides, reportWatch, audit, policy, policyCounts, storage };
}
