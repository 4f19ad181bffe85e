import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { outputsBySource } from "../../datasets/outputs-by-source.ts";
import { jsonResponse } from "../json-response.ts";

/** `GET /v1/about`, no key needed: the data in use, where it comes from, how recent it is and under which terms. */
export function about(snapshots: SnapshotHolder): Response {
  const snapshot = snapshots.current();
  const usedBy = outputsBySource(snapshot);
  return jsonResponse(
    JSON.stringify({
      dataset_version: snapshot.version,
      sources: Object.entries(snapshot.sources)
        .filter(([name]) => usedBy.has(name))
        .map(([name, s]) => ({
          name,
          origin: s.origin,
          licence: s.licence,
          feeds: s.feeds,
          entries: s.entries,
          data_date: s.dataDate,
          fetched_at: s.fetchedAt,
        })),
    }),
  );
}
