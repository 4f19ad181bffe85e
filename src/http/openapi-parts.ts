import { API_ERRORS, type ApiError } from "./errors.ts";
import { ErrorSchema, RetryableErrorSchema, StorageErrorSchema } from "./error-schema.ts";

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

/** A failed database's examples, as the answers say them (errors.ts, storageFaultText). */
export const STORAGE_EXAMPLES = {
  locked: {
    summary: "A backup holding SQLite's write lock",
    value: {
      error: "service_unavailable",
      reason: "locked",
      outcome: "not_done",
      message:
        "The database is locked by another process: nothing of this request was changed; send it again after 2 seconds",
    },
  },
  unknown: {
    summary: "PostgreSQL gone while the change was being committed",
    value: {
      error: "service_unavailable",
      reason: "unreachable",
      outcome: "unknown",
      message:
        "The database is not reachable: it stopped answering while this change was being committed, so the change " +
        "may or may not have been made; look before sending it again, after 5 seconds",
    },
  },
  unreachable: {
    summary: "PostgreSQL stopped",
    value: {
      error: "service_unavailable",
      reason: "unreachable",
      outcome: "not_done",
      message: "The database is not reachable: this could not be read; try again after 5 seconds",
    },
  },
} as const;

/**
 * The 503 of a route whose database failed (locked by another process, unreachable, full): never a
 * 500, with when to try again and whether the change may have been made.
 */
export function storageUnavailable(examples: readonly (keyof typeof STORAGE_EXAMPLES)[], read = false) {
  return {
    description: read
      ? "The database failed: nothing could be read; try again after `Retry-After` seconds. The checks keep answering from memory."
      : "The database is locked by another process, unreachable, out of disk space or failing: try again after " +
        "`Retry-After` seconds. `outcome` says whether the request's change was surely not made (`not_done`) or may " +
        "have been (`unknown`: the database stopped answering while it was being committed; look before sending it " +
        "again). The checks keep answering from memory meanwhile, and `/healthz` says `degraded`.",
    headers: {
      ...RATE_HEADERS,
      "Retry-After": integerHeader(
        "Seconds to wait before trying again: 2 (locked), 5 (unreachable), 30 (full), 10 (failing).",
      ),
    },
    content: jsonContent(StorageErrorSchema, Object.fromEntries(examples.map((e) => [e, STORAGE_EXAMPLES[e]]))),
  };
}

/**
 * The 429 of a keyed route: its rate limit, and its monthly quota when `quota` says how a request
 * passes it (the example's summary) and the quota headers it carries.
 */
export function tooManyRequests(description: string, quota?: { example: string; headers: object }) {
  const rateLimited = errorExample(API_ERRORS.rateLimited, "Beyond the key's bucket");
  if (quota === undefined)
    return {
      description,
      headers: RETRY_HEADERS,
      content: jsonContent(errorSchema([API_ERRORS.rateLimited], true), { rate_limit_exceeded: rateLimited }),
    };
  return {
    description,
    headers: { ...RETRY_HEADERS, ...quota.headers },
    content: jsonContent(errorSchema([API_ERRORS.rateLimited, API_ERRORS.quotaExceeded], true), {
      rate_limit_exceeded: rateLimited,
      quota_exceeded: errorExample(API_ERRORS.quotaExceeded, quota.example),
    }),
  };
}
