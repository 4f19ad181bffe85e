import type { ParsedCommandLine } from "./command-spec.ts";
import type { KEYS_CREATE, KEYS_LIST, KEYS_REVOKE, KEYS_ROTATE, KEYS_UPDATE, KEYS_USAGE } from "./commands.ts";
import { type Config, loadConfig } from "../app/config.ts";
import { UsageError } from "../app/usage-error.ts";
import { wholeNumber } from "../app/setting.ts";
import { parseAllowedNetworks } from "../keys/allowed-networks.ts";
import { parseExpiry } from "../keys/expiry.ts";
import { type KeyRecord, keyStatus, rotationEndsAt } from "../keys/key-record.ts";
import { type KeyChanges, KeyStoreError, MAX_KEY_LIMIT, keyNamed } from "../keys/key-store.ts";
import { parsePermissions } from "../keys/permissions.ts";
import { OUTCOME_KINDS, dailyOutcomes, outcomeTotals } from "../keys/usage-outcomes.ts";
import type { KeyUsage } from "../keys/usage-store.ts";
import { hint } from "../app/self-command.ts";
import { parseDuration } from "../time/duration.ts";
import { withExistingStores, withStoresMadeIfNeeded } from "./database.ts";
import { printTable } from "./table.ts";

/** A per-key limit flag: absent is the server's default; empty is a mistake, not 0 (which means unlimited). */
function keyLimit(value: string | undefined, flag: string): number | null {
  if (value === undefined) return null;
  if (value === "")
    throw new UsageError(`${flag} needs a number (0 for no limit); leave the flag out for the server's default`);
  return wholeNumber(value, flag, 0, MAX_KEY_LIMIT);
}

/** The same on update: absent leaves it, `default` returns to the server's setting. */
function changedLimit(value: string | undefined, flag: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === "default") return null;
  if (value === "")
    throw new UsageError(`${flag} needs a number (0 for no limit), or default for the server's setting`);
  return wholeNumber(value, flag, 0, MAX_KEY_LIMIT);
}

/** The flags create and update share, checked; undefined where absent. */
function settingFlags(
  values: { permissions?: string; expires?: string; "allow-from"?: string },
  nowMs: number,
): KeyChanges {
  const changes: KeyChanges = {};
  if (values.permissions !== undefined) {
    const parsed = parsePermissions(values.permissions);
    if ("error" in parsed) throw new UsageError(`--permissions: ${parsed.error}`);
    changes.permissions = parsed.permissions;
  }
  if (values.expires !== undefined) {
    const parsed = parseExpiry(values.expires, nowMs);
    if ("error" in parsed) throw new UsageError(`--expires: ${parsed.error}`);
    changes.expiresAt = parsed.expiresAt;
  }
  const allow = values["allow-from"];
  if (allow !== undefined) {
    const parsed = parseAllowedNetworks(allow.trim().toLowerCase() === "any" ? "" : allow);
    if ("error" in parsed) throw new UsageError(`--allow-from: ${parsed.error}`);
    changes.allowedNetworks = parsed.networks;
  }
  return changes;
}

/** A value the store refuses (a bad setting, a name in use) is a usage error; no such key, or a revoked one, fails as revoke does. */
async function asUsageError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof KeyStoreError && (err.problem === "invalid" || err.problem === "name_taken"))
      throw new UsageError(err.message);
    throw err;
  }
}

export async function createKey({ values }: ParsedCommandLine<typeof KEYS_CREATE>): Promise<number> {
  const rate = keyLimit(values["rate-per-minute"], "--rate-per-minute");
  const quota = keyLimit(values["ip-quota-per-month"], "--ip-quota-per-month");
  const settings = settingFlags(values, Date.now());
  const config = loadConfig(values, process.env);
  const { key, secret } = await withStoresMadeIfNeeded(config, values, ({ keys }) =>
    asUsageError(() => keys.create({ ...settings, name: values.name, ratePerMinute: rate, ipQuotaPerMonth: quota })),
  );
  if (values.json) {
    console.log(JSON.stringify({ ...keyJson(key, Date.now()), key: secret }));
  } else {
    console.log(
      `Created ${key.id} "${key.name}"${key.expiresAt ? `, expiring ${key.expiresAt}` : ""}. This is the only time the key is shown; store it now:`,
    );
    console.log(secret);
  }
  return 0;
}

export async function updateKey({ values, operand }: ParsedCommandLine<typeof KEYS_UPDATE>): Promise<number> {
  const changes: KeyChanges = {
    ...settingFlags(values, Date.now()),
    ratePerMinute: changedLimit(values["rate-per-minute"], "--rate-per-minute"),
    ipQuotaPerMonth: changedLimit(values["ip-quota-per-month"], "--ip-quota-per-month"),
    name: values.name,
  };
  for (const field of Object.keys(changes) as (keyof KeyChanges)[])
    if (changes[field] === undefined) delete changes[field];
  if (Object.keys(changes).length === 0)
    throw new UsageError(
      "keys update needs at least one change: --name, --rate-per-minute, --ip-quota-per-month, --permissions, --expires or --allow-from",
    );
  const config = loadConfig(values, process.env);
  const { before, after } = await withExistingStores(config, values, ({ keys }) =>
    asUsageError(() => keys.update(operand, changes)),
  );
  const nowMs = Date.now();
  if (values.json) {
    console.log(JSON.stringify({ before: keyJson(before, nowMs), after: keyJson(after, nowMs) }));
    return 0;
  }
  console.log(`Updated ${after.id} "${after.name}"; running servers apply it within 3 seconds:`);
  const [was, is] = [keyJson(before, nowMs), keyJson(after, nowMs)];
  for (const field of Object.keys(is) as (keyof typeof is)[]) {
    if (JSON.stringify(was[field]) !== JSON.stringify(is[field]))
      console.log(`  ${field}: ${shown(was[field])} → ${shown(is[field])}`);
  }
  return 0;
}

function shown(value: unknown): string {
  if (value === null) return "(none)";
  return Array.isArray(value) ? (value.length === 0 ? "(any)" : value.join(",")) : String(value);
}

export async function rotateKey({ values, operand }: ParsedCommandLine<typeof KEYS_ROTATE>): Promise<number> {
  const grace = values.grace === undefined ? 86_400_000 : values.grace === "0" ? 0 : parseDuration(values.grace);
  if (grace === null)
    throw new UsageError(`--grace must be a duration such as 90s, 30m, 24h or 7d, or 0; got "${values.grace}"`);
  const config = loadConfig(values, process.env);
  const { after, secret } = await withExistingStores(config, values, ({ keys }) =>
    asUsageError(() => keys.rotate(operand, grace)),
  );
  if (values.json) {
    console.log(JSON.stringify({ ...keyJson(after, Date.now()), key: secret }));
    return 0;
  }
  const old = after.previousSecretEndsAt
    ? `the old secret works until ${after.previousSecretEndsAt}`
    : "the old secret no longer works";
  console.log(`Rotated ${after.id} "${after.name}": ${old}. This is the only time the new key is shown; store it now:`);
  console.log(secret);
  return 0;
}

export async function listKeys({ values }: ParsedCommandLine<typeof KEYS_LIST>): Promise<number> {
  const config = loadConfig(values, process.env);
  const nowMs = Date.now();
  const { list, totals } = await withExistingStores(config, values, async ({ keys, usage }) => {
    const list = await keys.list();
    return {
      list,
      totals: await usage.usageOf(
        list.map((k) => k.id),
        0,
        nowMs,
      ),
    };
  });
  const rows = list.map((k) => ({ ...keyJson(k, nowMs), usage: usageJson(totals.get(k.id), k, config) }));
  if (values.json) console.log(JSON.stringify(rows, null, 2));
  else printKeyTable(rows, config);
  return 0;
}

export async function revokeKey({ values, operand }: ParsedCommandLine<typeof KEYS_REVOKE>): Promise<number> {
  const config = loadConfig(values, process.env);
  const key = await withExistingStores(config, values, ({ keys }) => keys.revoke(operand));
  console.log(`Revoked ${key.id} "${key.name}" at ${key.revokedAt}; the API refuses it from the next request.`);
  return 0;
}

export async function keyUsage({ values, operand }: ParsedCommandLine<typeof KEYS_USAGE>): Promise<number> {
  const days = values.days ? wholeNumber(values.days, "--days", 1, 400) : 30;
  const config = loadConfig(values, process.env);
  const nowMs = Date.now();
  const { key, rows } = await withExistingStores(config, values, async ({ keys, usage }) => {
    const key =
      (await keys.find(operand)) ??
      keyNamed(
        operand,
        (await keys.list()).filter((k) => k.name === operand),
      );
    return { key, rows: await usage.outcomesOf(key.id, days, nowMs) };
  });
  const daily = dailyOutcomes(rows, days, nowMs);
  if (values.json) {
    console.log(JSON.stringify({ id: key.id, name: key.name, days: daily, total: outcomeTotals(daily) }, null, 2));
    return 0;
  }
  console.log(
    `${key.id} "${key.name}", the last ${days} days (UTC), counted up to the servers' last flush (every 5 s):`,
  );
  const headings = ["DAY", "ANSWERED", "RATE-LIMITED", "OVER QUOTA", "REFUSED", "FORBIDDEN", "REPORTS ACCEPTED"];
  const line = (first: string, counts: Record<(typeof OUTCOME_KINDS)[number], number>) => [
    first,
    ...OUTCOME_KINDS.map((k) => String(counts[k])),
  ];
  printTable([headings, ...daily.map((d) => line(d.day, d)), line("total", outcomeTotals(daily))]);
  return 0;
}

function keyJson(k: KeyRecord, nowMs: number) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    status: keyStatus(k, nowMs),
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    last_used_ip: k.lastUsedIp,
    revoked_at: k.revokedAt,
    expires_at: k.expiresAt,
    rate_per_minute: k.ratePerMinute,
    ip_quota_per_month: k.ipQuotaPerMonth,
    permissions: k.permissions,
    allowed_networks: k.allowedNetworks,
    /** When the previous secret of a rotation in progress stops working. */
    rotation_ends_at: rotationEndsAt(k, nowMs),
  };
}

function usageJson(t: KeyUsage | undefined, k: KeyRecord, config: Config) {
  const quota = k.ipQuotaPerMonth ?? config.ipQuotaPerMonth;
  return {
    today: { email: t?.today.email ?? 0, ip: t?.today.ip ?? 0 },
    month: { email: t?.month.email ?? 0, ip: t?.month.ip ?? 0 },
    ip_quota_used: t?.ipQuotaUsed ?? 0,
    ip_quota_per_month: quota === 0 ? null : quota,
    ip_quota_left: quota === 0 ? null : Math.max(0, quota - (t?.ipQuotaUsed ?? 0)),
  };
}

const minute = (iso: string) => iso.slice(0, 16).replace("T", " ");

function printKeyTable(
  rows: (ReturnType<typeof keyJson> & { usage: ReturnType<typeof usageJson> })[],
  config: Config,
): void {
  if (rows.length === 0) {
    console.log(`No keys yet. Create one with: ${hint(config, "keys create --name my-app")}`);
    return;
  }
  const table = [
    [
      "ID",
      "NAME",
      "PREFIX",
      "STATUS",
      "PERMISSIONS",
      "CREATED",
      "LAST USED",
      "FROM",
      "TODAY email/ip",
      "MONTH email/ip",
      "IP QUOTA LEFT",
      "NOTES",
    ],
    ...rows.map((r) => [
      r.id,
      r.name,
      `${r.prefix}…`,
      r.status,
      r.permissions.join(","),
      minute(r.created_at),
      r.last_used_at ? minute(r.last_used_at) : "never",
      r.last_used_ip ?? "-",
      `${r.usage.today.email}/${r.usage.today.ip}`,
      `${r.usage.month.email}/${r.usage.month.ip}`,
      r.usage.ip_quota_left === null ? "unlimited" : `${r.usage.ip_quota_left}/${r.usage.ip_quota_per_month}`,
      notes(r),
    ]),
  ];
  printTable(table);
}

/** Expiry, rotation in progress and network restriction, in few words (UTC). */
function notes(r: ReturnType<typeof keyJson>): string {
  const parts: string[] = [];
  if (r.expires_at && r.status !== "revoked")
    parts.push(`${r.status === "expired" ? "expired" : "expires"} ${minute(r.expires_at)}`);
  if (r.rotation_ends_at && r.status === "active")
    parts.push(`rotating: old secret until ${minute(r.rotation_ends_at)}`);
  if (r.allowed_networks.length > 0) parts.push(`from ${r.allowed_networks.join(",")} only`);
  return parts.join("; ") || "-";
}
