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
