import type { ParsedCommandLine } from "./command-spec.ts";
import { KEYS_CREATE, KEYS_LIST, KEYS_REVOKE } from "./commands.ts";
import { type Config, UsageError, integer, loadConfig } from "../app/config.ts";
import type { KeyRecord } from "../keys/key-record.ts";
import { KeyStoreError, MAX_KEY_LIMIT } from "../keys/key-store.ts";
import { parsePermissions } from "../keys/permissions.ts";
import type { KeyUsage } from "../keys/usage-store.ts";
import { hint } from "../app/self-command.ts";
import { withExistingStores, withStoresMadeIfNeeded } from "./database.ts";
import { printTable } from "./table.ts";

/** A per-key limit flag: absent is the server's default; empty is a mistake, not 0 (which means unlimited). */
function keyLimit(value: string | undefined, flag: string): number | null {
  if (value === undefined) return null;
  if (value === "") throw new UsageError(`${flag} needs a number (0 for no limit); leave the flag out for the server's default`);
  return integer(value, flag, 0, 0, MAX_KEY_LIMIT);
}

export async function createKey({ values }: ParsedCommandLine<typeof KEYS_CREATE>): Promise<number> {
  const rate = keyLimit(values["rate-per-minute"], "--rate-per-minute");
  const quota = keyLimit(values["ip-quota-per-month"], "--ip-quota-per-month");
  const permissions = values.permissions === undefined ? undefined : parsePermissions(values.permissions);
  if (permissions !== undefined && "error" in permissions) throw new UsageError(`--permissions: ${permissions.error}`);
  const config = loadConfig(values, process.env);
  const { key, secret } = await withStoresMadeIfNeeded(config, values, async ({ keys }) => {
    try {
      return await keys.create({ name: values.name, ratePerMinute: rate, ipQuotaPerMonth: quota, permissions: permissions?.permissions });
    } catch (err) {
      if (err instanceof KeyStoreError) throw new UsageError(err.message);
      throw err;
    }
  });
  if (values.json) {
    console.log(JSON.stringify({ ...keyJson(key), key: secret }));
  } else {
    console.log(`Created ${key.id} "${key.name}". This is the only time the key is shown; store it now:`);
    console.log(secret);
  }
  return 0;
}

export async function listKeys({ values }: ParsedCommandLine<typeof KEYS_LIST>): Promise<number> {
  const config = loadConfig(values, process.env);
  const { list, totals } = await withExistingStores(config, values, async ({ keys, usage }) => {
    const list = await keys.list();
    return { list, totals: await usage.usageOf(list.map((k) => k.id), 0, Date.now()) };
  });
  const rows = list.map((k) => ({ ...keyJson(k), usage: usageJson(totals.get(k.id), k, config) }));
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

function keyJson(k: KeyRecord) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    status: k.revokedAt ? "revoked" : "active",
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    revoked_at: k.revokedAt,
    rate_per_minute: k.ratePerMinute,
    ip_quota_per_month: k.ipQuotaPerMonth,
    permissions: k.permissions,
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

function printKeyTable(rows: (ReturnType<typeof keyJson> & { usage: ReturnType<typeof usageJson> })[], config: Config): void {
  if (rows.length === 0) {
    console.log(`No keys yet. Create one with: ${hint(config, "keys create --name my-app")}`);
    return;
  }
  const table = [
    ["ID", "NAME", "PREFIX", "STATUS", "PERMISSIONS", "CREATED", "LAST USED", "TODAY email/ip", "MONTH email/ip", "IP QUOTA LEFT"],
    ...rows.map((r) => [
      r.id,
      r.name,
      r.prefix + "…",
      r.status,
      r.permissions.join(","),
      r.created_at.slice(0, 16).replace("T", " "),
      r.last_used_at ? r.last_used_at.slice(0, 16).replace("T", " ") : "never",
      `${r.usage.today.email}/${r.usage.today.ip}`,
      `${r.usage.month.email}/${r.usage.month.ip}`,
      r.usage.ip_quota_left === null ? "unlimited" : `${r.usage.ip_quota_left}/${r.usage.ip_quota_per_month}`,
    ]),
  ];
  printTable(table);
}
