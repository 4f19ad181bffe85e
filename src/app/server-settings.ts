import { checkNewPassword } from "../dashboard/admin-password.ts";
import { PROXY_HEADERS, type ProxyHeader, parseTrustedProxies } from "../ip/address/client-address.ts";
import { DEFAULT_THRESHOLDS, type Thresholds } from "../ip/verdict/reputation.ts";
import { DEFAULT_EVIDENCE_RULE, EVIDENCE_RULES } from "../email/evidence-rule.ts";
import { DEFAULT_OVERRIDE_LIMITS } from "../email/overrides.ts";
import { problemWithDatabaseUrl } from "../stores/postgres/connection-url.ts";
import { parseDuration } from "../time/duration.ts";
import { MAX_TIMER_MS } from "../time/long-timeout.ts";
import { type SettingsTable, oneOf, period, setting, text, wholeNumbers } from "./setting.ts";
import { UsageError } from "./usage-error.ts";
import { parseResolverAddresses } from "../dns/resolver-addresses.ts";

/** The levels whose thresholds RISKCHECK_LEVEL_SUMS sets, lowest first. */
const LEVEL_NAMES = ["informative", "suspicious", "warning", "bad"] as const;

/**
 * Every server setting, one row each: its variable, its flag (on the commands whose tables
 * list it), its default, its documentation and how its text is read. The configuration
 * (`loadConfig`) has each row's value under the row's key, a group's in one object; the
 * commands' help and the manual's tables (`bun run docs`) are written from the rows.
 *
 * A new setting is a row here, and its consumer reading `config.<key>`. Without a flag it
 * names the commands it changes (`readBy`); with one, add `settingFlag(SERVER_SETTINGS.<key>)`
 * to the flag tables of the commands that take it (src/cli/commands.ts). Then `bun run docs`.
 */
export const SERVER_SETTINGS = {
  host: setting({
    variable: "RISKCHECK_HOST",
    flag: { name: "host", value: "HOST" },
    default: "127.0.0.1",
    description: "Address to listen on",
    read: text,
  }),
  port: setting({
    variable: "RISKCHECK_PORT",
    flag: { name: "port", value: "PORT" },
    default: "8080",
    description: "Port to listen on; 0 picks a free one",
    read: wholeNumbers(0, 65535),
  }),
  dataDir: setting({
    variable: "RISKCHECK_DATA_DIR",
    flag: { name: "data-dir", value: "DIR" },
    default: "./data",
    description: "Datasets directory",
    read: text,
  }),
  /** null: the data directory's own file (`Config.dbPath` says which). */
  dbPath: setting({
    variable: "RISKCHECK_DB",
    flag: { name: "db", value: "FILE" },
    default: null,
    shown: "DATA_DIR/riskcheck.sqlite",
    description:
      "SQLite file with keys, usage, reports, email and IP overrides and the dashboard's state (one instance)",
    read: text,
  }),
  /** When set, keys, usage, quota counters and the dashboard's state live in this PostgreSQL database instead of dbPath. */
  databaseUrl: setting({
    variable: "RISKCHECK_DATABASE_URL",
    flag: { name: "database-url", value: "URL" },
    default: null,
    shown: "none: the SQLite file",
    description:
      "PostgreSQL database (postgres://USER:PASSWORD@HOST:5432/DB) shared by several instances, instead of --db",
    read: (url, label) => {
      const problem = problemWithDatabaseUrl(url);
      if (problem) throw new UsageError(`${label} ${problem}`);
      return url;
    },
  }),
  /** null: sources.json in the data directory (`Config.sourcesFile` says which). */
  sourcesFile: setting({
    variable: "RISKCHECK_SOURCES",
    flag: { name: "sources", value: "FILE" },
    default: null,
    shown: "DATA_DIR/sources.json",
    description: "Where the data comes from (sources.json)",
    read: text,
  }),
  /** How often `serve` refreshes its datasets; null: never (air-gapped hosts). */
  updateEveryMs: setting({
    variable: "RISKCHECK_UPDATE_EVERY",
    flag: { name: "update-every", value: "PERIOD" },
    default: "24h",
    description: "How often the datasets are refreshed (24h, 12h, 30m …), with jitter; off disables it",
    read: (text, label): number | null => {
      if (text === "off") return null;
      const ms = parseDuration(text);
      if (ms === null || ms < 1_000)
        throw new UsageError(`${label}: "${text}" is not a period such as 24h, 12h, 30m, or off`);
      return ms;
    },
  }),
  /** Dataset versions kept on disk: the current one and those it was built on. */
  keepVersions: setting({
    variable: "RISKCHECK_KEEP_VERSIONS",
    flag: { name: "keep-versions", value: "N" },
    default: "3",
    description:
      "Dataset versions kept, 1 to 100: the current one and those it was built on (what update --rollback steps back through)",
    read: wholeNumbers(1, 100),
  }),
  /** Default token-bucket refill per key; 0 disables rate limiting. */
  ratePerMinute: setting({
    variable: "RISKCHECK_RATE_PER_MINUTE",
    readBy: ["serve"],
    default: "600",
    description: "Default token-bucket refill per key and minute; 0 disables rate limiting",
    read: wholeNumbers(0),
  }),
  rateBurst: setting({
    variable: "RISKCHECK_RATE_BURST",
    readBy: ["serve"],
    default: "120",
    description: "Default bucket size: requests a key may send at once",
    read: wholeNumbers(1),
  }),
  /** Default monthly quota of the IP check per key; 0 means unlimited. */
  ipQuotaPerMonth: setting({
    variable: "RISKCHECK_IP_QUOTA_PER_MONTH",
    readBy: ["serve"],
    default: "100000",
    description: "Default monthly quota of successful IP checks per key; 0 is unlimited",
    read: wholeNumbers(0),
  }),
  /**
   * The same rules as `admin set-password`: a password shorter than 12 characters or longer than 1,024 is refused, not
   * accepted or unusable.
   */
  adminPassword: setting({
    variable: "RISKCHECK_ADMIN_PASSWORD",
    readBy: ["serve"],
    default: null,
    description:
      "Dashboard password, 12 to 1,024 characters; wins over one stored with `admin set-password`, and is stored " +
      "at start in place of a stored one it does not match, which signs every session out",
    read: (password, label) => {
      const problem = checkNewPassword(password);
      if (problem) throw new UsageError(`${label}: ${problem}`);
      return password;
    },
  }),
  /** Peers whose forwarding header (`trustProxyHeader`) is believed. */
  trustedProxies: setting({
    variable: "RISKCHECK_TRUST_PROXY",
    readBy: ["serve"],
    default: "",
    shown: "none",
    description: "Comma-separated addresses/CIDRs of reverse proxies whose forwarding header is believed",
    read: (spec, label) => {
      try {
        return parseTrustedProxies(spec).proxies;
      } catch (err) {
        throw new UsageError(`${label}: ${(err as Error).message}`);
      }
    },
  }),
  trustProxyHeader: setting({
    variable: "RISKCHECK_TRUST_PROXY_HEADER",
    readBy: ["serve"],
    default: PROXY_HEADERS[0],
    description: "The one header believed from them: x-forwarded-for, forwarded, x-real-ip or cf-connecting-ip",
    read: (header, label): ProxyHeader => {
      const name = header.toLowerCase();
      if (!(PROXY_HEADERS as readonly string[]).includes(name))
        throw new UsageError(`${label} must be one of ${PROXY_HEADERS.join(", ")}, got "${header}"`);
      return name as ProxyHeader;
    },
  }),
  /** How long a stopping server lets in-flight requests finish before it closes their connections. */
  drainTimeoutMs: setting({
    variable: "RISKCHECK_DRAIN_TIMEOUT_MS",
    readBy: ["serve"],
    default: "5000",
    description:
      "How long a stopping server lets in-flight requests finish before closing their connections; 0 to 2147483647 (about 24.8 days)",
    read: wholeNumbers(0, MAX_TIMER_MS),
  }),
  /** When set, GET /metrics needs it as a Bearer token; otherwise /metrics is open. */
  metricsToken: setting({
    variable: "RISKCHECK_METRICS_TOKEN",
    readBy: ["serve"],
    default: null,
    description: "When set, GET /metrics needs `Authorization: Bearer <token>`",
    read: text,
  }),
  usageFlushMs: setting({
    variable: "RISKCHECK_USAGE_FLUSH_MS",
    readBy: ["serve"],
    default: "5000",
    description:
      "How often usage counters are written to the database (with PostgreSQL also: how often idle quota leases go " +
      "back and every key's count is read); 100 to 2147483647",
    read: wholeNumbers(100, MAX_TIMER_MS),
  }),
  /** How much evidence makes a listed domain disposable. */
  emailEvidence: setting({
    variable: "RISKCHECK_EMAIL_EVIDENCE",
    // update: the version it makes keeps its email lists as served under the rule (docs/datasets.md).
    readBy: ["serve", "update", "scan"],
    default: DEFAULT_EVIDENCE_RULE,
    description:
      "What makes a listed domain disposable: any (one list), corroborated (a verifying list, a list that copies " +
      "no other, or two independent lists) or strict (a verifying list or two independent lists)",
    read: oneOf(EVIDENCE_RULES),
  }),
  /**
   * DNS evidence for the email check (docs/email.md): off unless `resolvers` is set. The check's
   * budget, cache and cap on lookups in flight; what `update` resolves when it compiles the table.
   */
  dns: {
    resolvers: setting({
      variable: "RISKCHECK_DNS_RESOLVER",
      readBy: ["serve", "update", "scan"],
      default: null,
      shown: "none: DNS evidence off",
      description:
        "Turns DNS evidence on: the resolvers asked for a domain's mail servers, comma-separated IP, IP:PORT or " +
        "[IPv6]:PORT, or system (/etc/resolv.conf); update then resolves known disposable domains' mail servers, " +
        "and the email check looks up domains no list decides",
      read: (text, label) => {
        const addresses = parseResolverAddresses(text);
        if (typeof addresses === "object" && "problem" in addresses)
          throw new UsageError(`${label}: ${addresses.problem}`);
        return addresses;
      },
    }),
    budgetMs: setting({
      variable: "RISKCHECK_DNS_BUDGET_MS",
      readBy: ["serve", "scan"],
      default: "150",
      description:
        "How long an email check waits for DNS, 1 to 10000 ms; past it the lists answer, and the lookup goes on to fill the cache",
      read: wholeNumbers(1, 10_000),
    }),
    cacheSize: setting({
      variable: "RISKCHECK_DNS_CACHE_SIZE",
      readBy: ["serve", "scan"],
      default: "100000",
      description: "Domains whose mail servers are kept, 1 to 10000000; past it the oldest entry goes",
      read: wholeNumbers(1, 10_000_000),
    }),
    cacheTtlMs: setting({
      variable: "RISKCHECK_DNS_CACHE_TTL",
      readBy: ["serve", "scan"],
      default: "1h",
      description: "How long a domain's mail servers are kept before they are looked up again",
      read: period,
    }),
    negativeTtlMs: setting({
      variable: "RISKCHECK_DNS_NEGATIVE_TTL",
      readBy: ["serve", "scan"],
      default: "10m",
      description:
        "How long a domain that receives no mail (null MX, no MX and no address) is kept; a failed lookup at most 30s",
      read: period,
    }),
    inFlight: setting({
      variable: "RISKCHECK_DNS_IN_FLIGHT",
      readBy: ["serve", "update", "scan"],
      default: "64",
      description:
        "DNS lookups under way at once, 1 to 4096; a check that finds no room within its budget is answered from the lists",
      read: wholeNumbers(1, 4096),
    }),
    updateDomains: setting({
      variable: "RISKCHECK_DNS_UPDATE_DOMAINS",
      readBy: ["serve", "update"],
      default: "5000",
      description:
        "Known disposable domains an update resolves, 0 to 1000000, Castle's first, then the most listed, those resolved longest ago first",
      read: wholeNumbers(0, 1_000_000),
    }),
    updateTimeMs: setting({
      variable: "RISKCHECK_DNS_UPDATE_TIME",
      readBy: ["serve", "update"],
      default: "3m",
      description: "The longest an update (serve's own refresh included) spends resolving them",
      read: period,
    }),
  },
  /** Where the reputation levels start, in independent reports. */
  thresholds: setting({
    variable: "RISKCHECK_LEVEL_SUMS",
    readBy: ["serve", "scan"],
    default: levelSumsText(DEFAULT_THRESHOLDS),
    description:
      "Independent reports from which an address is at each level, as LEVEL=N pairs; a level left out keeps its " +
      "default, and the four must rise from informative to bad",
    read: levelSums,
    formerly: (["bad", "warning", "suspicious", "informative"] as const).map((level) => ({
      variable: `RISKCHECK_LEVEL_${level.toUpperCase()}_SUM`,
      means: (value: string) => `${level}=${value}`,
    })),
  }),
  /**
   * Local abuse reports: repeats of a key's report within `dedupMs` are duplicates; `windowMs` is what the verdict
   * counts; `retentionMs` what is kept.
   */
  reports: {
    windowMs: setting({
      variable: "RISKCHECK_REPORT_WINDOW",
      readBy: ["serve", "scan"],
      default: "90d",
      description: "Local reports count in the verdict for this long: distinct reporting keys per category",
      read: period,
    }),
    dedupMs: setting({
      variable: "RISKCHECK_REPORT_DEDUP",
      readBy: ["serve"],
      default: "24h",
      description: "A key's repeat of a report (same address and category) within this is a duplicate",
      read: period,
    }),
    retentionMs: setting({
      variable: "RISKCHECK_REPORT_RETENTION",
      readBy: ["serve"],
      default: "365d",
      description: "Local reports older than this are deleted",
      read: period,
    }),
    keyDailyLimit: setting({
      variable: "RISKCHECK_REPORT_KEY_DAILY_LIMIT",
      readBy: ["serve"],
      default: "10000",
      description:
        "Distinct addresses one key may report per day (UTC); reports of further ones are refused with limit_reached",
      read: wholeNumbers(1),
    }),
  },
  /** The audit log: what the server prunes after `retentionMs`; `lines`: each event also as a JSON line to `stdout` or a file. */
  audit: {
    retentionMs: setting({
      variable: "RISKCHECK_AUDIT_RETENTION",
      readBy: ["serve"],
      default: "400d",
      description:
        "Audit log events older than this are deleted by the server, at least 1d; each pruning is itself recorded (docs/audit.md)",
      read: (text, label) => {
        const ms = period(text, label);
        // At least a day: a shorter retention would prune the record of what was just done.
        if (ms < 86_400_000) throw new UsageError(`${label}: "${text}" is shorter than a day; give days, such as 400d`);
        return ms;
      },
    }),
    lines: setting({
      variable: "RISKCHECK_AUDIT_LOG",
      readBy: ["serve"],
      default: null,
      description:
        "Also write each audit event as one JSON line: stdout (for a CLI command: its standard error), or a file " +
        "appended to, made 0600, never through a symbolic link; every command reads it, and a CLI command run on " +
        "the server's data directory without it writes to the server's file",
      read: text,
    }),
  },
  /** How many override lines of each kind are kept, and how many of them one API key may add. */
  overrideLimits: {
    lines: setting({
      variable: "RISKCHECK_MAX_OVERRIDE_LINES",
      readBy: ["serve", "email allow", "email deny", "ip allow", "ip deny"],
      default: String(DEFAULT_OVERRIDE_LIMITS.lines),
      description:
        "Override lines kept of each kind, IP and email: a new line beyond it is refused (409 limit_reached for the admin API)",
      read: wholeNumbers(1),
    }),
    linesPerKey: setting({
      variable: "RISKCHECK_MAX_OVERRIDE_LINES_PER_KEY",
      readBy: ["serve"],
      default: String(DEFAULT_OVERRIDE_LIMITS.linesPerKey),
      description:
        "Override lines of each kind one API key may add through /v1/overrides: a new line beyond it is refused (409 limit_reached)",
      read: wholeNumbers(1),
    }),
  },
} as const satisfies SettingsTable;

function levelSumsText(t: Thresholds): string {
  return LEVEL_NAMES.map((level) => `${level}=${t[level]}`).join(",");
}

/** `warning=4,bad=8`: each level named at most once wins over its default (a later pair over an earlier one). */
function levelSums(text: string, label: string): Thresholds {
  const t: Record<keyof Thresholds, number> = { ...DEFAULT_THRESHOLDS };
  for (const pair of text.split(",")) {
    const match = /^\s*([a-z]+)\s*=\s*(\d+)\s*$/.exec(pair);
    const level = LEVEL_NAMES.find((name) => name === match?.[1]);
    if (!match || !level)
      throw new UsageError(`${label}: "${pair}" is not LEVEL=N with LEVEL one of ${LEVEL_NAMES.join(", ")}`);
    t[level] = Number(match[2]);
    if (t[level] < 1) throw new UsageError(`${label}: ${level} must be at least 1, got ${match[2]}`);
  }
  if (!(t.informative <= t.suspicious && t.suspicious <= t.warning && t.warning <= t.bad)) {
    throw new UsageError(
      `${label}: the level thresholds must rise from informative to bad, got informative ${t.informative}, ` +
        `suspicious ${t.suspicious}, warning ${t.warning}, bad ${t.bad}`,
    );
  }
  return Object.freeze(t);
}
