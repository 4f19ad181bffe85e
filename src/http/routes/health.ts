import type { RefreshState } from "../../datasets/refresh-scheduler.ts";
import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { outputsBySource } from "../../datasets/outputs-by-source.ts";
import { jsonResponse } from "../json-response.ts";
import { Type } from "@sinclair/typebox";
import { Nullable } from "../../schema/json-schema.ts";
import { type PathOperations, jsonContent } from "../openapi-parts.ts";
import type { StorageState } from "../../faults/storage-health.ts";

/**
 * `/healthz`: 200 while the datasets serve; `status` is `degraded` while the database fails
 * (the checks answer from memory, writes answer 503), `storage` says why and since when.
 */
export function health(
  snapshots: SnapshotHolder,
  startedMs: number,
  nowMs: number,
  warnings: string[],
  refresh: RefreshState | null,
  storage: StorageState,
): Response {
  const snapshot = snapshots.current();
  const usedBy = outputsBySource(snapshot);
  const at = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
  return jsonResponse(
    JSON.stringify({
      status: storage.status,
      storage:
        storage.status === "ok"
          ? { status: "ok" }
          : { status: "degraded", reason: storage.reason, since: storage.since, last_fault_at: storage.lastFaultAt },
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

const dated = (description?: string) =>
  Nullable(Type.String({ format: "date-time" }), description === undefined ? {} : { description });

export const HealthSchema = Type.Object(
  {
    status: Type.Unsafe<"ok" | "degraded">({
      enum: ["ok", "degraded"],
      description: "degraded while the database fails: the checks answer from memory, writes answer 503.",
    }),
    storage: Type.Union(
      [
        Type.Object({ status: Type.Literal("ok") }, { additionalProperties: false }),
        Type.Object(
          {
            status: Type.Literal("degraded"),
            reason: Type.Union([
              Type.Literal("locked"),
              Type.Literal("unreachable"),
              Type.Literal("full"),
              Type.Literal("failing"),
            ]),
            since: Type.String({ format: "date-time", description: "The first fault of this spell." }),
            last_fault_at: Type.String({ format: "date-time" }),
          },
          { additionalProperties: false },
        ),
      ],
      { description: "What this instance saw of its database: degraded from a fault until 10 s pass without one." },
    ),
    uptime_seconds: Type.Integer({ minimum: 0 }),
    dataset_version: Type.String({ description: "The dataset version folder being served." }),
    snapshot_loaded_at: Type.String({ format: "date-time" }),
    warnings: Type.Array(Type.String(), {
      description:
        "What needs the operator's attention while the server keeps serving: no reputation feed loaded, a source " +
        "older than its cadence, the last refresh failed or could not fetch a source, refresh off for data never " +
        "refreshed.",
    }),
    refresh: Nullable(
      Type.Object({
        every_seconds: Type.Number({ exclusiveMinimum: 0 }),
        running: Type.Boolean(),
        next_at: dated(),
        last_success_at: dated(),
        last_finished_at: dated(),
        last_error: Nullable(Type.String()),
      }),
      { description: "The automatic refresh (RISKCHECK_UPDATE_EVERY); null when it is off." },
    ),
    datasets: Type.Array(
      Type.Object({
        name: Type.String(),
        file: Type.String(),
        entries: Type.Optional(Type.Integer({ minimum: 0 })),
        sources: Type.Optional(
          Type.Array(Type.String(), { description: "For a compiled output: the sources it was composed from." }),
        ),
        date: dated(
          "The date of its data: a database's build date, the newest of its sources' data dates, a file's modification.",
        ),
        age_days: Nullable(Type.Integer({ minimum: 0 })),
      }),
      { description: "Every file loaded: the compiled outputs and the operator's own files." },
    ),
    sources: Type.Array(
      Type.Object({
        name: Type.String(),
        format: Type.String(),
        feeds: Type.String(),
        entries: Type.Integer({ minimum: 0 }),
        data_date: dated("The date of the data itself."),
        data_date_from: Type.Unsafe<"content" | "package" | "last-modified" | null>({
          enum: ["content", "package", "last-modified", null],
          description: "How it is known: the data says so, the npm package's release, or the server's Last-Modified.",
        }),
        age_days: Nullable(Type.Integer({ minimum: 0 }), {
          description: "From data_date; null when no date is known.",
        }),
        fetched_at: Type.String({ format: "date-time" }),
        checked_at: Type.String({
          format: "date-time",
          description: "When an update last confirmed it, a 304 included.",
        }),
        used_by: Type.Array(Type.String(), {
          description: "The outputs it feeds; empty when a newer copy supersedes it.",
        }),
      }),
    ),
  },
  { $id: "Health" },
);

/** `GET /healthz` as the OpenAPI document describes it. */
export const HEALTH_OPERATIONS = {
  "/healthz": {
    get: {
      tags: ["operations"],
      operationId: "health",
      summary: "Liveness, and the datasets being served with their dates",
      security: [],
      responses: {
        "200": {
          description: "The server is up with its datasets loaded.",
          content: jsonContent(HealthSchema),
        },
      },
    },
  },
} satisfies PathOperations;
