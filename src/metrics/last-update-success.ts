import { lastRefreshedFromNetwork } from "../datasets/freshness.ts";
import type { SourceRecord } from "../datasets/manifest.ts";
import type { RefreshState } from "../datasets/refresh-scheduler.ts";

/**
 * When an update last reached the sources: the automatic refresh's last success (a refresh
 * that found nothing new counts), else the newest check of a network source recorded in
 * the current version; null when the data has never been refreshed from the network.
 */
export function lastUpdateSuccess(
  refresh: RefreshState | null,
  sources: Readonly<Record<string, SourceRecord>>,
): string | null {
  const at = refresh?.lastSuccessAt ?? lastRefreshedFromNetwork(sources);
  return at === null ? null : new Date(at).toISOString();
}
