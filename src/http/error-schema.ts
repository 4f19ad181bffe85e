import { Type } from "@sinclair/typebox";

/** Every error body: `{"error": code, "message": text}`. */
export const ErrorSchema = Type.Object(
  {
    error: Type.String({ description: "Machine-readable code." }),
    message: Type.String({ description: "For people." }),
  },
  { $id: "Error" },
);

/** The rate limit's and the quota's 429, which say when to come back. */
export const RetryableErrorSchema = Type.Unsafe({
  $id: "RetryableError",
  allOf: [ErrorSchema],
  required: ["retry_after"],
  properties: {
    retry_after: {
      type: "integer",
      description:
        "Seconds, fixed by the spec: 60 for the rate limit, 86400 for the quota. The headers tell the actual wait.",
      enum: [60, 86400],
    },
  },
});

/** The database's 503 (errors.ts, storageFaultResponse). */
export const StorageErrorSchema = Type.Object(
  {
    error: Type.Literal("service_unavailable"),
    reason: Type.Union([
      Type.Literal("locked"),
      Type.Literal("unreachable"),
      Type.Literal("full"),
      Type.Literal("failing"),
    ]),
    outcome: Type.Union([Type.Literal("not_done"), Type.Literal("unknown")], {
      description: "Whether the request's change was surely not made, or may have been (always `not_done` for a read).",
    }),
    message: Type.String(),
  },
  { $id: "StorageError", additionalProperties: false },
);
