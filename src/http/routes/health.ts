import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { jsonResponse } from "../errors.ts";

export function health(snapshots: SnapshotHolder, startedMs: number, nowMs: number): Response {
  const snapshot = snapshots.current();
  return jsonResponse(
    JSON.stringify({
      status: "ok",
      uptime_seconds: Math.floor((nowMs - startedMs) / 1000),
      dataset_version: snapshot.version,
      snapshot_loaded_at: snapshot.loadedAt,
      datasets: snapshot.datasets.map((d) => ({
        name: d.name,
        file: d.file,
        ...(d.entries === undefined ? {} : { entries: d.entries }),
        date: d.date,
        age_days: ageDays(d.date, nowMs),
      })),
      sources: Object.entries(snapshot.sources).map(([name, s]) => ({
        name,
        fetched_at: s.fetchedAt,
        source_date: s.lastModified ?? null,
        age_days: ageDays(s.fetchedAt, nowMs),
        entries: s.entries ?? null,
      })),
    }),
  );
}

/** `GET /v1/about`, no key needed: the datasets in use, where they come from and under which terms. */
export function about(snapshots: SnapshotHolder): Response {
  const snapshot = snapshots.current();
  return jsonResponse(
    JSON.stringify({
      dataset_version: snapshot.version,
      sources: Object.entries(snapshot.sources).map(([name, s]) => ({
        name,
        origin: s.origin,
        fetched_at: s.fetchedAt,
        source_date: s.lastModified ?? null,
        licence: s.licence ?? null,
      })),
    }),
  );
}

function ageDays(iso: string, nowMs: number): number | null {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? null : Math.max(0, Math.floor((nowMs - at) / 86_400_000));
}
