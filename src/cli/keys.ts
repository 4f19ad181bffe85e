import { parseGrace } from "../keys/rotation-grace.ts";
import type { ParsedCommandLine } from "./command-spec.ts";
import type { KEYS_CREATE, KEYS_LIST, KEYS_REVOKE, KEYS_ROTATE, KEYS_UPDATE, KEYS_USAGE } from "./commands.ts";
import { type Config, loadConfig } from "../app/config.ts";
import type { Flags } from "../app/setting.ts";
import { UsageError } from "../app/usage-error.ts";
import { wholeNumber } from "../app/setting.ts";
import { type KeyRecord, keyStatus, rotationEndsAt } from "../keys/key-record.ts";
import { KEY_SETTING_ROWS } from "../keys/key-settings.ts";
import { type KeyChanges, KeyStoreError, keyNamed } from "../keys/key-store.ts";
import { OUTCOME_KINDS, dailyOutcomes, outcomeTotals } from "../keys/usage-outcomes.ts";
import type { KeyUsage } from "../keys/usage-store.ts";
import { hint } from "../app/self-command.ts";
import { withExistingStores, withStoresMadeIfNeeded } from "./database.ts";
import { printTable } from "./table.ts";

/** The key settings' flags given (src/keys/key-settings.ts), checked; a flag left out is left out. */
function settingFlags(values: Flags, on: "create" | "update", nowMs: number): KeyChanges {
  const changes: Record<string, unknown> = {};
  for (const [name, { flag }] of KEY_SETTING_ROWS) {
    const text = values[flag.name];
    if (typeof text !== "string") continue;
    const parsed = flag.parse(text, on, nowMs);
    if ("error" in parsed) throw new UsageError(parsed.error);
    changes[name] = parsed.value;
  }
  return changes as KeyChanges;
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
  const settings = { ...settingFlags(values, "create", Date.now()), name: values.name as string };
  const config = loadConfig(values, process.env);
  const { key, secret } = await withStoresMadeIfNeeded(config, values, ({ keys }) =>
    asUsageError(() => keys.create(settings)),
  );
  if (values.json) {
    console.log(JSON.stringify({ ...keyJson(key, Date.now()), key: secret }));
  } else {
    console.log(
      `Created ${key.id} "${key.name}"${key.expiresAt ? `, expiring ${key.expiresAt}` : ""}. ` +
        "This is the only time the key is shown; store it now:",
    );
    console.log(secret);
  }
  return 0;
}

export async function updateKey({ values, operand }: ParsedCommandLine<typeof KEYS_UPDATE>): Promise<number> {
  const changes = settingFlags(values, "update", Date.now());
  if (Object.keys(changes).length === 0) {
    const flags = KEY_SETTING_ROWS.map(([, s]) => `--${s.flag.name}`);
    throw new UsageError(`keys update needs at least one change: ${flags.slice(0, -1).join(", ")} or ${flags.at(-1)}`);
  }
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
  const parsed = values.grace === undefined ? { graceMs: 86_400_000 } : parseGrace(values.grace);
  if ("error" in parsed) throw new UsageError(`--grace: ${parsed.error}`);
  const grace = parsed.graceMs;
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
  const rows = list.map((k) => ({ key: k, usage: usageJson(totals.get(k.id), k, config) }));
  if (values.json)
    console.log(
      JSON.stringify(
        rows.map((r) => ({ ...keyJson(r.key, nowMs), usage: r.usage })),
        null,
        2,
      ),
    );
  else printKeyTable(rows, config, nowMs);
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
    prefix: k.prefix,
    status: keyStatus(k, nowMs),
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    last_used_ip: k.lastUsedIp,
    revoked_at: k.revokedAt,
    ...settingsJson(k),
    /** When the previous secret of a rotation in progress stops working. */
    rotation_ends_at: rotationEndsAt(k, nowMs),
  };
}

/** The key's settings under their columns' names (src/keys/key-settings.ts): `rate_per_minute`, `allowed_networks` … */
function settingsJson(k: KeyRecord): Record<string, unknown> {
  return Object.fromEntries(KEY_SETTING_ROWS.map(([name, s]) => [s.column, k[name]]));
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
  rows: readonly { key: KeyRecord; usage: ReturnType<typeof usageJson> }[],
  config: Config,
  nowMs: number,
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
    ...rows.map(({ key: k, usage }) => [
      k.id,
      k.name,
      `${k.prefix}…`,
      keyStatus(k, nowMs),
      k.permissions.join(","),
      minute(k.createdAt),
      k.lastUsedAt ? minute(k.lastUsedAt) : "never",
      k.lastUsedIp ?? "-",
      `${usage.today.email}/${usage.today.ip}`,
      `${usage.month.email}/${usage.month.ip}`,
      usage.ip_quota_left === null ? "unlimited" : `${usage.ip_quota_left}/${usage.ip_quota_per_month}`,
      notes(k, nowMs),
    ]),
  ];
  printTable(table);
}

/** Expiry, rotation in progress and network restriction, in few words (UTC). */
function notes(k: KeyRecord, nowMs: number): string {
  const status = keyStatus(k, nowMs);
  const rotation = rotationEndsAt(k, nowMs);
  const parts: string[] = [];
  if (k.expiresAt && status !== "revoked")
    parts.push(`${status === "expired" ? "expired" : "expires"} ${minute(k.expiresAt)}`);
  if (rotation && status === "active") parts.push(`rotating: old secret until ${minute(rotation)}`);
  if (k.allowedNetworks.length > 0) parts.push(`from ${k.allowedNetworks.join(",")} only`);
  return parts.join("; ") || "-";
}
