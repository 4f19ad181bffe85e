import { overrideFor } from "../email/overrides.ts";
import type { SourceRecord } from "./manifest.ts";
import type { RefreshState } from "./refresh-scheduler.ts";
import type { Snapshot } from "./snapshot.ts";

/** When an update last reached any source over the network (not the bundled packages); null: never. */
export function lastRefreshedFromNetwork(sources: Readonly<Record<string, SourceRecord>>): number | null {
  const times = Object.values(sources)
    .filter((s) => !s.url?.startsWith("npm:"))
    .map((s) => Date.parse(s.checkedAt))
    .filter((t) => !Number.isNaN(t));
  return times.length ? Math.max(...times) : null;
}

const days = (ms: number) => Math.floor(ms / 86_400_000);

/**
 * What an operator should know about the data being served, one sentence each: no
 * reputation feed loaded, a source in use older than its publisher's cadence, the last
 * refresh failed or was refused, or automatic refresh off for data never refreshed.
 * `refresh` is null when automatic refresh is off.
 */
export function datasetWarnings(snapshot: Snapshot, refresh: RefreshState | null, nowMs: number): string[] {
  const warnings: string[] = [];
  if (!(snapshot.outputs["reputation-index"]?.count > 0)) {
    const fix = refresh ? "the automatic refresh fetches the feeds" : 'run "riskcheck update"';
    warnings.push(`no reputation feed is loaded: IP verdicts rest on network kinds alone, and "ok" means no data rather than clean; ${fix}`);
  }
  const inUse = new Set(Object.values(snapshot.outputs).flatMap((o) => o.sources));
  for (const [name, source] of Object.entries(snapshot.sources)) {
    if (!inUse.has(name) || !source.cadenceMs) continue;
    const dated = source.dataDate ?? source.fetchedAt;
    const age = nowMs - Date.parse(dated);
    if (age > source.cadenceMs) {
      warnings.push(`source ${name}: its data (${dated.slice(0, 10)}) is ${days(age)} days old, older than the ${days(source.cadenceMs) || 1}-day cadence its publisher keeps`);
    }
  }
  const unsettled = [...snapshot.email.heldBack].filter((name) => overrideFor(snapshot.email.overrides, name) === undefined);
  if (unsettled.length) {
    const shown = unsettled.slice(0, 5).join(", ") + (unsettled.length > 5 ? " …" : "");
    warnings.push(`${unsettled.length} disputed disposable names held back by update, not yet settled (${shown}): see current/email/disputed.txt and settle each with "riskcheck email allow|deny"`);
  }
  const last = refresh?.last;
  if (last?.error) warnings.push(`the last refresh (${new Date(last.finishedAt).toISOString()}) installed nothing: ${last.error}`);
  for (const failed of last?.failedSources ?? []) warnings.push(`the last refresh could not fetch ${failed.name}, which keeps its data: ${failed.detail}`);
  if (!refresh && lastRefreshedFromNetwork(snapshot.sources) === null) {
    warnings.push('automatic refresh is off (RISKCHECK_UPDATE_EVERY=off) and the data has never been refreshed from the network; run "riskcheck update"');
  }
  return warnings;
}
