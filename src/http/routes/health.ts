import type { RefreshState } from "../../datasets/refresh-scheduler.ts";
import type { Snapshot, SnapshotHolder } from "../../datasets/snapshot.ts";
import { jsonResponse } from "../errors.ts";

export function health(snapshots: SnapshotHolder, startedMs: number, nowMs: number, warnings: string[], refresh: RefreshState | null): Response {
  const snapshot = snapshots.current();
  const usedBy = outputsBySource(snapshot);
  const at = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
  return jsonResponse(
    JSON.stringify({
      status: "ok",
      uptime_seconds: Math.floor((nowMs - startedMs) / 1000),
      dataset_version: snapshot.version,
      snapshot_loaded_at: snapshot.loadedAt,
      warnings,
      refresh: refresh && {
        every_seconds: refresh.everyMs / 1000,
        running: refresh.running,
        next_at: at(refresh.nextAt),
        last_success_at: at(refresh.lastSuccessAt),
        last_finished_at: at(refresh.last?.finishedAt),
        last_error: refresh.last?.error ?? null,
      },
      datasets: snapshot.datasets.map((d) => ({
        name: d.name,
        file: d.file,
        ...(d.entries === undefined ? {} : { entries: d.entries }),
        ...(snapshot.outputs[d.name] ? { sources: snapshot.outputs[d.name].sources } : {}),
        date: d.date,
        age_days: ageDays(d.date, nowMs),
      })),
      sources: Object.entries(snapshot.sources).map(([name, s]) => ({
        name,
        format: s.format,
        feeds: s.feeds,
        entries: s.entries,
        data_date: s.dataDate,
        data_date_from: s.dataDateFrom,
        age_days: ageDays(s.dataDate, nowMs),
        fetched_at: s.fetchedAt,
        checked_at: s.checkedAt,
        used_by: usedBy.get(name) ?? [],
      })),
    }),
  );
}

/** `GET /v1/about`, no key needed: the data in use, where it comes from, how recent it is and under which terms. */
export function about(snapshots: SnapshotHolder): Response {
  const snapshot = snapshots.current();
  const usedBy = outputsBySource(snapshot);
  return jsonResponse(
    JSON.stringify({
      dataset_version: snapshot.version,
      sources: Object.entries(snapshot.sources)
        .filter(([name]) => usedBy.has(name))
        .map(([name, s]) => ({ name, origin: s.origin, licence: s.licence, feeds: s.feeds, entries: s.entries, data_date: s.dataDate, fetched_at: s.fetchedAt })),
    }),
  );
}

/** The outputs each source feeds in this version; a superseded source feeds none. */
function outputsBySource(snapshot: Snapshot): Map<string, string[]> {
  const usedBy = new Map<string, string[]>();
  for (const [output, record] of Object.entries(snapshot.outputs)) {
    for (const source of record.sources) usedBy.set(source, [...(usedBy.get(source) ?? []), output]);
  }
  return usedBy;
}

function ageDays(iso: string | null, nowMs: number): number | null {
  const at = iso === null ? Number.NaN : Date.parse(iso);
  return Number.isNaN(at) ? null : Math.max(0, Math.floor((nowMs - at) / 86_400_000));
}
