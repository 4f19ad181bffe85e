import { join } from "node:path";
import { type ProxyTrust, parseTrustedProxies } from "./ip/client-address.ts";
import { DEFAULT_THRESHOLDS, type Thresholds } from "./ip/reputation.ts";

export class UsageError extends Error {}

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly dbPath: string;
  /** Default token-bucket refill per key; 0 disables rate limiting. */
  readonly ratePerMinute: number;
  /** Default token-bucket size per key. */
  readonly rateBurst: number;
  /** Default monthly quota of the IP check per key; 0 means unlimited. */
  readonly ipQuotaPerMonth: number;
  readonly adminPassword: string | null;
  /** Peers whose X-Forwarded-For / Forwarded headers are believed. */
  readonly trustProxy: ProxyTrust;
  /** Where the reputation levels start. */
  readonly thresholds: Thresholds;
  readonly usageFlushMs: number;
  /** When set, GET /metrics needs it as a Bearer token; otherwise /metrics is open. */
  readonly metricsToken: string | null;
}

export type ConfigFlags = Partial<Record<"host" | "port" | "data-dir" | "db", string | undefined>>;
type Env = Record<string, string | undefined>;

export const DEFAULTS = Object.freeze({
  host: "127.0.0.1",
  port: 8080,
  dataDir: "./data",
  ratePerMinute: 600,
  rateBurst: 120,
  ipQuotaPerMonth: 100_000,
  usageFlushMs: 5_000,
});

/** Flags win over the environment, which wins over the defaults. */
export function loadConfig(flags: ConfigFlags, env: Env): Config {
  const pick = (flag: keyof ConfigFlags | null, variable: string) =>
    (flag && flags[flag] !== undefined ? flags[flag] : env[variable]) || undefined;

  const dataDir = pick("data-dir", "RISKCHECK_DATA_DIR") ?? DEFAULTS.dataDir;
  const config: Config = {
    host: pick("host", "RISKCHECK_HOST") ?? DEFAULTS.host,
    port: integer(pick("port", "RISKCHECK_PORT"), "--port / RISKCHECK_PORT", DEFAULTS.port, 0, 65535),
    dataDir,
    dbPath: pick("db", "RISKCHECK_DB") ?? join(dataDir, "riskcheck.sqlite"),
    ratePerMinute: integer(env.RISKCHECK_RATE_PER_MINUTE, "RISKCHECK_RATE_PER_MINUTE", DEFAULTS.ratePerMinute, 0),
    rateBurst: integer(env.RISKCHECK_RATE_BURST, "RISKCHECK_RATE_BURST", DEFAULTS.rateBurst, 1),
    ipQuotaPerMonth: integer(env.RISKCHECK_IP_QUOTA_PER_MONTH, "RISKCHECK_IP_QUOTA_PER_MONTH", DEFAULTS.ipQuotaPerMonth, 0),
    adminPassword: env.RISKCHECK_ADMIN_PASSWORD || null,
    trustProxy: trustedProxies(env.RISKCHECK_TRUST_PROXY ?? ""),
    thresholds: Object.freeze({
      badSum: integer(env.RISKCHECK_LEVEL_BAD_SUM, "RISKCHECK_LEVEL_BAD_SUM", DEFAULT_THRESHOLDS.badSum, 1),
      warningSum: integer(env.RISKCHECK_LEVEL_WARNING_SUM, "RISKCHECK_LEVEL_WARNING_SUM", DEFAULT_THRESHOLDS.warningSum, 1),
      warningAttack: integer(env.RISKCHECK_LEVEL_WARNING_ATTACK, "RISKCHECK_LEVEL_WARNING_ATTACK", DEFAULT_THRESHOLDS.warningAttack, 1),
      suspiciousSum: integer(env.RISKCHECK_LEVEL_SUSPICIOUS_SUM, "RISKCHECK_LEVEL_SUSPICIOUS_SUM", DEFAULT_THRESHOLDS.suspiciousSum, 1),
      informativeSum: integer(env.RISKCHECK_LEVEL_INFORMATIVE_SUM, "RISKCHECK_LEVEL_INFORMATIVE_SUM", DEFAULT_THRESHOLDS.informativeSum, 1),
    }),
    usageFlushMs: integer(env.RISKCHECK_USAGE_FLUSH_MS, "RISKCHECK_USAGE_FLUSH_MS", DEFAULTS.usageFlushMs, 100),
    metricsToken: env.RISKCHECK_METRICS_TOKEN || null,
  };
  return Object.freeze(config);
}

function trustedProxies(spec: string): ProxyTrust {
  try {
    return parseTrustedProxies(spec);
  } catch (err) {
    throw new UsageError(`RISKCHECK_TRUST_PROXY: ${(err as Error).message}`);
  }
}

export function integer(value: string | undefined, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} must be a whole number, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`${name} must be between ${min} and ${max}, got ${value}`);
  return n;
}
