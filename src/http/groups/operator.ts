import { Elysia } from "elysia";
import type { RefreshState } from "../../datasets/refresh-scheduler.ts";
import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { jsonResponse } from "../json-response.ts";
import { openApiJson } from "../openapi-document.ts";
import { about } from "../routes/about.ts";
import { health } from "../routes/health.ts";
import { type MetricsDeps, metrics } from "../routes/metrics.ts";
import { synchronous } from "../synchronous.ts";
import type { StorageHealth } from "../../faults/storage-health.ts";

export interface OperatorDeps {
  readonly snapshots: SnapshotHolder;
  readonly startedMs: number;
  readonly now: () => number;
  readonly metrics: MetricsDeps;
  /** What the operator should know about the data being served, with no path of the install: anyone may read /healthz. */
  readonly warnings: () => string[];
  readonly refreshState: () => RefreshState | null;
  /** What this instance has seen of its database. */
  readonly storage: StorageHealth;
}

/** What needs no API key: health, the data's provenance, the API's description, Prometheus metrics. */
export function operator(deps: OperatorDeps) {
  return new Elysia()
    .get(
      "/healthz",
      synchronous(() =>
        health(deps.snapshots, deps.startedMs, deps.now(), deps.warnings(), deps.refreshState(), deps.storage.state()),
      ),
    )
    .get(
      "/v1/about",
      synchronous(() => about(deps.snapshots)),
    )
    .get(
      "/openapi.json",
      synchronous(() => jsonResponse(openApiJson())),
    )
    .get("/metrics", async ({ request }) => metrics(deps.metrics, request));
}
