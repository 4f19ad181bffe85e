import { join } from "node:path";
import { checkNewPassword } from "../dashboard/admin-password.ts";
import { parseDuration } from "../time/duration.ts";
import { MAX_TIMER_MS } from "../time/long-timeout.ts";
import type { ReportSettings } from "../reports/report.ts";
import { PROXY_HEADERS, type ProxyHeader, type ProxyTrust, parseTrustedProxies } from "../ip/address/client-address.ts";
import { DEFAULT_THRESHOLDS, type Thresholds } from "../ip/verdict/reputation.ts";
import { DEFAULT_EVIDENCE_RULE, EVIDENCE_RULES, type EvidenceRule } from "../email/evidence-rule.ts";
import { problemWithDatabaseUrl } from "../stores/postgres/connection-url.ts";

export class UsageError extends Error {}

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly dbPath: string;
  /** When set, keys, usage, quota counters and the dashboard's state live in this PostgreSQL database instead of dbPath. */
  readonly databaseUrl: string | null;
  /** Default token-bucket refill per key; 0 disables rate limiting. */
  readonly ratePerMinute: number;
  /** Default token-bucket size per key. */
  readonly rateBurst: number;
  /** Default monthly quota of the IP check per key; 0 means unlimited. */
  readonly ipQuotaPerMonth: number;
  readonly adminPassword: string | null;
  /** Peers whose forwarding header (one, configured) is believed. */
  readonly trustProxy: ProxyTrust;
  /** Where the reputation levels start. */
  readonly thresholds: Thresholds;
  /** How much evidence makes a listed domain disposable. */
  readonly emailEvidence: EvidenceRule;
  readonly usageFlushMs: number;
  /** Dataset versions kept on disk: the current one and those it was built on. */
  readonly keepVersions: number;
  /** The sources `update` and the refresh inside `serve` read. */
  readonly sourcesFile: string;
  /** How often `serve` refreshes its datasets; null: never (air-gapped hosts). */
  readonly updateEveryMs: number | null;
  /** Where that came from, as the user wrote it: `--update-every off`, `RISKCHECK_UPDATE_EVERY=off`, or null for the default. */
  readonly updateEverySetBy: string | null;
  /** How long a stopping server lets in-flight requests finish before it closes their connections. */
  readonly drainTimeoutMs: number;
  /** When set, GET /metrics needs it as a Bearer token; otherwise /metrics is open. */
  readonly metricsToken: string | null;
  /** Local abuse reports: repeats of a key's report within `dedupMs` are duplicates; `windowMs` is what the verdict counts; `retentionMs` what is kept. */
  readonly reports: ReportSettings;
  /** The audit log: what the server prunes after `retentionMs`; `lines`: each event also as a JSON line to `stdout` or a file. */
  readonly audit: { readonly retentionMs: number; readonly lines: string | null };
}

export type ConfigFlags = Partial<
  Record<
    "host" | "port" | "data-dir" | "db" | "database-url" | "keep-versions" | "sources" | "update-every",
    string | undefined
  >
>;
type Env = Record<string, string | undefined>;

export const DEFAULTS = Object.freeze({
  host: "127.0.0.1",
  port: 8080,
  dataDir: "./data",
  ratePerMinute: 600,
  rateBurst: 120,
  ipQuotaPerMonth: 100_000,
  usageFlushMs: 5_000,
  keepVersions: 3,
  updateEvery: "24h",
  drainTimeoutMs: 5_000,
  reportDedup: "24h",
  reportWindow: "90d",
  reportRetention: "365d",
  reportKeyDailyLimit: 10_000,
  auditRetention: "400d",
});

/** The SQLite file a data directory holds unless --db / RISKCHECK_DB names another. */
export function ownDbPath(dataDir: string): string {
  return join(dataDir, "riskcheck.sqlite");
}

/** Flags win over the environment, which wins over the defaults. */
export function loadConfig(flags: ConfigFlags, env: Env): Config {
  const pick = (flag: keyof ConfigFlags | null, variable: string) =>
    (flag && flags[flag] !== undefined ? flags[flag] : env[variable]) || undefined;

  const dataDir = pick("data-dir", "RISKCHECK_DATA_DIR") ?? DEFAULTS.dataDir;
  const config: Config = {
    host: pick("host", "RISKCHECK_HOST") ?? DEFAULTS.host,
    port: integer(pick("port", "RISKCHECK_PORT"), "--port / RISKCHECK_PORT", DEFAULTS.port, 0, 65535),
    dataDir,
    dbPath: pick("db", "RISKCHECK_DB") ?? ownDbPath(dataDir),
    databaseUrl: databaseUrl(pick("database-url", "RISKCHECK_DATABASE_URL"), pick("db", "RISKCHECK_DB")),
    ratePerMinute: integer(env.RISKCHECK_RATE_PER_MINUTE, "RISKCHECK_RATE_PER_MINUTE", DEFAULTS.ratePerMinute, 0),
    rateBurst: integer(env.RISKCHECK_RATE_BURST, "RISKCHECK_RATE_BURST", DEFAULTS.rateBurst, 1),
    ipQuotaPerMonth: integer(
      env.RISKCHECK_IP_QUOTA_PER_MONTH,
      "RISKCHECK_IP_QUOTA_PER_MONTH",
      DEFAULTS.ipQuotaPerMonth,
      0,
    ),
    adminPassword: adminPassword(env.RISKCHECK_ADMIN_PASSWORD),
    trustProxy: trustedProxies(env.RISKCHECK_TRUST_PROXY ?? "", env.RISKCHECK_TRUST_PROXY_HEADER || PROXY_HEADERS[0]),
    thresholds: thresholds(env),
    emailEvidence: evidenceRule(env.RISKCHECK_EMAIL_EVIDENCE || DEFAULT_EVIDENCE_RULE),
    usageFlushMs: integer(
      env.RISKCHECK_USAGE_FLUSH_MS,
      "RISKCHECK_USAGE_FLUSH_MS",
      DEFAULTS.usageFlushMs,
      100,
      MAX_TIMER_MS,
    ),
    keepVersions: integer(
      pick("keep-versions", "RISKCHECK_KEEP_VERSIONS"),
      "--keep-versions / RISKCHECK_KEEP_VERSIONS",
      DEFAULTS.keepVersions,
      1,
      100,
    ),
    sourcesFile: pick("sources", "RISKCHECK_SOURCES") ?? join(dataDir, "sources.json"),
    updateEveryMs: updateEvery(pick("update-every", "RISKCHECK_UPDATE_EVERY") ?? DEFAULTS.updateEvery),
    updateEverySetBy: flags["update-every"]
      ? `--update-every ${flags["update-every"]}`
      : env.RISKCHECK_UPDATE_EVERY
        ? `RISKCHECK_UPDATE_EVERY=${env.RISKCHECK_UPDATE_EVERY}`
        : null,
    drainTimeoutMs: integer(
      env.RISKCHECK_DRAIN_TIMEOUT_MS,
      "RISKCHECK_DRAIN_TIMEOUT_MS",
      DEFAULTS.drainTimeoutMs,
      0,
      MAX_TIMER_MS,
    ),
    metricsToken: env.RISKCHECK_METRICS_TOKEN || null,
    reports: {
      dedupMs: period(env.RISKCHECK_REPORT_DEDUP ?? DEFAULTS.reportDedup, "RISKCHECK_REPORT_DEDUP"),
      windowMs: period(env.RISKCHECK_REPORT_WINDOW ?? DEFAULTS.reportWindow, "RISKCHECK_REPORT_WINDOW"),
      retentionMs: period(env.RISKCHECK_REPORT_RETENTION ?? DEFAULTS.reportRetention, "RISKCHECK_REPORT_RETENTION"),
      keyDailyLimit: integer(
        env.RISKCHECK_REPORT_KEY_DAILY_LIMIT,
        "RISKCHECK_REPORT_KEY_DAILY_LIMIT",
        DEFAULTS.reportKeyDailyLimit,
        1,
      ),
    },
    audit: {
      retentionMs: auditRetention(env.RISKCHECK_AUDIT_RETENTION ?? DEFAULTS.auditRetention),
      lines: env.RISKCHECK_AUDIT_LOG || null,
    },
  };
  return Object.freeze(config);
}

/** The same rules as `admin set-password`: a password shorter than 12 characters or longer than 1,024 is refused, not accepted or unusable. */
function adminPassword(password: string | undefined): string | null {
  if (!password) return null;
  const problem = checkNewPassword(password);
  if (problem) throw new UsageError(`RISKCHECK_ADMIN_PASSWORD: ${problem}`);
  return password;
}

function databaseUrl(url: string | undefined, dbPath: string | undefined): string | null {
  if (url === undefined) return null;
  const problem = problemWithDatabaseUrl(url);
  if (problem) throw new UsageError(`--database-url / RISKCHECK_DATABASE_URL ${problem}`);
  if (dbPath !== undefined)
    throw new UsageError(
      "--db / RISKCHECK_DB and --database-url / RISKCHECK_DATABASE_URL name two databases; set one of them",
    );
  return url;
}

function evidenceRule(text: string): EvidenceRule {
  if ((EVIDENCE_RULES as readonly string[]).includes(text)) return text as EvidenceRule;
  throw new UsageError(`RISKCHECK_EMAIL_EVIDENCE: "${text}" is not one of ${EVIDENCE_RULES.join(", ")}`);
}

function period(text: string, variable: string): number {
  const ms = parseDuration(text);
  if (ms === null) throw new UsageError(`${variable}: "${text}" is not a period such as 24h, 90d or 30m`);
  return ms;
}

/** At least a day: a shorter retention would prune the record of what was just done. */
function auditRetention(text: string): number {
  const ms = period(text, "RISKCHECK_AUDIT_RETENTION");
  if (ms < 86_400_000)
    throw new UsageError(`RISKCHECK_AUDIT_RETENTION: "${text}" is shorter than a day; give days, such as 400d`);
  return ms;
}

function updateEvery(text: string): number | null {
  if (text === "off") return null;
  const ms = parseDuration(text);
  if (ms === null || ms < 1_000)
    throw new UsageError(
      `--update-every / RISKCHECK_UPDATE_EVERY: "${text}" is not a period such as 24h, 12h, 30m, or off`,
    );
  return ms;
}

/** The levels' thresholds in independent reports; each level must start at or above the one below it. */
function thresholds(env: Env): Thresholds {
  const level = (name: keyof Thresholds, variable: string) =>
    integer(env[variable], variable, DEFAULT_THRESHOLDS[name], 1);
  const t = Object.freeze({
    bad: level("bad", "RISKCHECK_LEVEL_BAD_SUM"),
    warning: level("warning", "RISKCHECK_LEVEL_WARNING_SUM"),
    suspicious: level("suspicious", "RISKCHECK_LEVEL_SUSPICIOUS_SUM"),
    informative: level("informative", "RISKCHECK_LEVEL_INFORMATIVE_SUM"),
  });
  if (!(t.informative <= t.suspicious && t.suspicious <= t.warning && t.warning <= t.bad)) {
    throw new UsageError(
      `the level thresholds must rise from informative to bad, got informative ${t.informative}, suspicious ${t.suspicious}, warning ${t.warning}, bad ${t.bad}`,
    );
  }
  return t;
}

function trustedProxies(spec: string, header: string): ProxyTrust {
  const name = header.toLowerCase();
  if (!isProxyHeader(name))
    throw new UsageError(`RISKCHECK_TRUST_PROXY_HEADER must be one of ${PROXY_HEADERS.join(", ")}, got "${header}"`);
  try {
    return parseTrustedProxies(spec, name);
  } catch (err) {
    throw new UsageError(`RISKCHECK_TRUST_PROXY: ${(err as Error).message}`);
  }
}

function isProxyHeader(name: string): name is ProxyHeader {
  return (PROXY_HEADERS as readonly string[]).includes(name);
}

export function integer(
  value: string | undefined,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} must be a whole number, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`${name} must be between ${min} and ${max}, got ${value}`);
  return n;
}
