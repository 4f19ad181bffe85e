import type { ApiError } from "./errors.ts";
import { ErrorSchema, RetryableErrorSchema } from "./error-schema.ts";

/**
 * What the routes' operations (each route's `…_OPERATIONS`, beside its handler) are written
 * with: the OpenAPI document (openapi-document.ts) is assembled from them and its frame.
 */

/** A path's operations by method, as OpenAPI writes them. */
export type PathOperations = Readonly<Record<string, Readonly<Record<string, object>>>>;

/** A header, response or parameter of the frame's components. */
export const ref = (kind: "headers" | "responses" | "parameters", name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** A JSON body: its schema (a schema with an `$id` becomes a component) and its examples. */
export const jsonContent = (schema: object, examples?: Record<string, { summary: string; value: unknown }>) => ({
  "application/json": { schema, ...(examples ? { examples } : {}) },
});

export const errorExample = (e: ApiError, summary: string) => ({
  summary,
  value:
    e.status === 429
      ? { error: e.error, message: e.message, retry_after: e.error === "quota_exceeded" ? 86400 : 60 }
      : { error: e.error, message: e.message },
});

/** The error body, its code one of `errors`. */
export const errorSchema = (errors: readonly Pick<ApiError, "error">[], retryAfter?: boolean) => ({
  allOf: [retryAfter ? RetryableErrorSchema : ErrorSchema],
  properties: { error: { enum: errors.map((e) => e.error) } },
});

export const integerHeader = (description: string) => ({
  description,
  schema: { type: "string", pattern: "^[0-9]+$" },
});

export const RATE_HEADERS = {
  "X-RateLimit-Limit": ref("headers", "X-RateLimit-Limit"),
  "X-RateLimit-Remaining": ref("headers", "X-RateLimit-Remaining"),
};
export const QUOTA_HEADERS = {
  "X-Quota-Limit": ref("headers", "X-Quota-Limit"),
  "X-Quota-Remaining": ref("headers", "X-Quota-Remaining"),
  "X-Quota-Reset": ref("headers", "X-Quota-Reset"),
};
export const RETRY_HEADERS = { ...RATE_HEADERS, "X-RateLimit-Reset": ref("headers", "X-RateLimit-Reset") };
