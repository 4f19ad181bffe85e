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
        age_days: Math.max(0, Math.floor((nowMs - Date.parse(d.date)) / 86_400_000)),
      })),
    }),
  );
}
