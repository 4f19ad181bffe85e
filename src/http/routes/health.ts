import type { RefreshState } from "../../datasets/refresh-scheduler.ts";
import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { outputsBySource } from "../../datasets/outputs-by-source.ts";
import { jsonResponse } from "../json-response.ts";

export function health(
  snapshots: SnapshotHolder,
  startedMs: number,
  nowMs: number,
  warnings: string[],
  refresh: RefreshState | null,
): Response {
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

function ageDays(iso: string | null, nowMs: number): number | null {
  const at = iso === null ? Number.NaN : Date.parse(iso);
  return Number.isNaN(at) ? null : Math.max(0, Math.floor((nowMs - at) / 86_400_000));
}
