import type { KeyRecord } from "../keys/key-record.ts";
import type { KeyStore } from "../keys/key-store.ts";
import type { UsageStore } from "../keys/usage-store.ts";

export interface KeyRow {
  key: KeyRecord;
  month: { email: number; ip: number };
  /** null when the key's IP quota is unlimited. */
  quotaLeft: number | null;
  quota: number | null;
}

export const KEYS_PER_PAGE = 50;

export interface KeyListing {
  readonly rows: KeyRow[];
  /** Keys that match the search (all keys without one). */
  readonly matching: number;
  readonly page: number;
  readonly pages: number;
  readonly search: string;
  /** When the listing was made: what "expired" and "rotating" are judged against. */
  readonly nowMs: number;
}

/** A search matches a key's name (any part, any case), its display prefix or its id. */
function matches(key: KeyRecord, search: string): boolean {
  return (
    search === "" ||
    key.name.toLowerCase().includes(search.toLowerCase()) ||
    key.prefix.startsWith(search) ||
    key.id === search
  );
}

/**
 * One page of the keys matching `search`, active before revoked and newest first, with
 * their usage read for that page only. Null when the page is past the last one.
 */
export async function keyListing(
  keys: KeyStore,
  usage: UsageStore,
  defaultIpQuota: number,
  nowMs: number,
  search: string,
  page: number,
): Promise<KeyListing | null> {
  const matching = (await keys.list())
    .filter((key) => matches(key, search))
    .sort(
      (a, b) => Number(a.revokedAt !== null) - Number(b.revokedAt !== null) || b.createdAt.localeCompare(a.createdAt),
    );
  const pages = Math.max(1, Math.ceil(matching.length / KEYS_PER_PAGE));
  if (page > pages) return null;
  const shown = matching.slice((page - 1) * KEYS_PER_PAGE, page * KEYS_PER_PAGE);
  const usageByKey = await usage.usageOf(
    shown.map((key) => key.id),
    0,
    nowMs,
  );
  const rows = shown.map((key) => {
    const u = usageByKey.get(key.id)!;
    const quota = key.ipQuotaPerMonth ?? defaultIpQuota;
    return {
      key,
      month: { email: u.month.email ?? 0, ip: u.month.ip ?? 0 },
      quota: quota === 0 ? null : quota,
      quotaLeft: quota === 0 ? null : Math.max(0, quota - u.ipQuotaUsed),
    };
  });
  return { rows, matching: matching.length, page, pages, search, nowMs };
}
