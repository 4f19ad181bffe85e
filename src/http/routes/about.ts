import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { outputsBySource } from "../../datasets/outputs-by-source.ts";
import { jsonResponse } from "../json-response.ts";
import { Type } from "@sinclair/typebox";
import { Nullable } from "../../schema/json-schema.ts";
import { type PathOperations, jsonContent } from "../openapi-parts.ts";

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

export const AboutSchema = Type.Object(
  {
    dataset_version: Type.String(),
    sources: Type.Array(
      Type.Object({
        name: Type.String(),
        origin: Type.String({ description: "A URL, or the npm package and version the data was installed from." }),
        licence: Type.String(),
        feeds: Type.String(),
        entries: Type.Integer({ minimum: 0 }),
        data_date: Nullable(Type.String({ format: "date-time" }), {
          description: "The date of the data itself, when known.",
        }),
        fetched_at: Type.String({ format: "date-time" }),
      }),
      { description: "The sources in use." },
    ),
  },
  { $id: "About" },
);

/** `GET /v1/about` as the OpenAPI document describes it. */
export const ABOUT_OPERATIONS = {
  "/v1/about": {
    get: {
      tags: ["operations"],
      operationId: "about",
      summary: "The dataset version, and each source's origin, dates and licence",
      security: [],
      responses: {
        "200": { description: "Where the data comes from.", content: jsonContent(AboutSchema) },
      },
    },
  },
} satisfies PathOperations;
