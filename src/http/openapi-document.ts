import pkg from "../../package.json" with { type: "json" };
import { API_ERRORS } from "./errors.ts";
import { outsideNetworks } from "./key-use.ts";
import {
  type PathOperations,
  RETRY_HEADERS,
  errorExample,
  errorSchema,
  integerHeader,
  jsonContent,
} from "./openapi-parts.ts";
import { ABOUT_OPERATIONS } from "./routes/about.ts";
import { ASSESS_OPERATIONS } from "./routes/assess.ts";
import { BATCH_OPERATIONS } from "./routes/batch.ts";
import { EMAIL_CHECK_OPERATIONS } from "./routes/email.ts";
import { HEALTH_OPERATIONS } from "./routes/health.ts";
import { IP_CHECK_OPERATIONS } from "./routes/ip.ts";
import { METRICS_OPERATIONS } from "./routes/metrics.ts";
import { OVERRIDE_OPERATIONS } from "./routes/overrides.ts";
import { POLICY_OPERATIONS } from "./routes/policy.ts";
import { REPORT_OPERATIONS } from "./routes/reports.ts";

/**
 * The OpenAPI 3.1 description of the HTTP API, served at `GET /openapi.json`: this frame (info,
 * tags, security, the shared headers and error answers) and each route's operations, declared
 * beside its handler in src/http/routes/. The answers' schemas are TypeBox declarations (each
 * with an `$id`), written into `components.schemas` and referred to from where they are used.
 * The examples are real answers on the bundled data; test/http/openapi.test.ts checks them, and
 * every documented status, against the running app.
 */

const UNAUTHORIZED = [API_ERRORS.missingKey, API_ERRORS.unknownKey, API_ERRORS.revokedKey] as const;

const PATHS: PathOperations = {
  ...EMAIL_CHECK_OPERATIONS,
  ...IP_CHECK_OPERATIONS,
  ...BATCH_OPERATIONS,
  ...ASSESS_OPERATIONS,
  ...REPORT_OPERATIONS,
  ...OVERRIDE_OPERATIONS,
  ...POLICY_OPERATIONS,
  ...HEALTH_OPERATIONS,
  ...ABOUT_OPERATIONS,
  "/openapi.json": {
    get: {
      tags: ["operations"],
      operationId: "openApi",
      summary: "This document",
      security: [],
      responses: {
        "200": {
          description: "OpenAPI 3.1.",
          content: { "application/json": { schema: { type: "object", required: ["openapi", "info", "paths"] } } },
        },
      },
    },
  },
  ...METRICS_OPERATIONS,
};

const FRAME = {
  openapi: "3.1.0",
  info: {
    title: "riskcheck",
    version: pkg.version,
    summary: "Self-hosted email and IP risk checks",
    description: [
      "Every answer comes from the appliance's own datasets: no network call per request.",
      "The two checks need `Authorization: Bearer <key>` (keys from the dashboard or `riskcheck keys create`).",
      "Keys carry permissions: `check` (the checks, the batch and the assessment; every key made without a word on " +
        "it), `report` (POST /v1/reports) and `manage` (the override lines, /v1/overrides, and the assessment rules, " +
        "/v1/policy; never given unless asked for). A key without the one a route needs gets `403 " +
        '{"error":"forbidden",…}`.',
      "The order of checks is: authentication, permission, rate limit, quota (IP check, batch, and an assessment " +
        "that gives an address), parameter validation.",
      'Unknown paths and other methods answer `404 {"error":"not_found","message":…}`.',
    ].join("\n\n"),
  },
  tags: [
    { name: "checks", description: "The API: email and IP checks, with a key" },
    { name: "operations", description: "Health, data provenance, this document and metrics: no key" },
    {
      name: "policy",
      description: "The operator's assessment rules (docs/assess.md), with a key that may `manage`",
    },
    {
      name: "overrides",
      description:
        "The operator's override lines for addresses, ranges, networks and email domains, with a key that may `manage`",
    },
  ],
  components: {
    securitySchemes: {
      apiKey: {
        type: "http",
        scheme: "bearer",
        description: "`rk_` followed by 43 base64url characters. Keys in the query string are not accepted.",
      },
      metricsToken: {
        type: "http",
        scheme: "bearer",
        description: "The value of `RISKCHECK_METRICS_TOKEN`, when the operator set one.",
      },
    },
    headers: {
      "X-RateLimit-Limit": integerHeader(
        "The key's bucket size: requests it may send at once. Absent when rate limiting is off.",
      ),
      "X-RateLimit-Remaining": integerHeader("Requests left in the bucket."),
      "X-RateLimit-Reset": integerHeader("Seconds until a request will be accepted again."),
      "X-Quota-Limit": integerHeader(
        "The key's monthly quota of successful IP checks; the private answer (an address outside global unicast) " +
          "uses none. The quota headers are absent when the quota is off.",
      ),
      "X-Quota-Remaining": integerHeader("Successful IP checks left this calendar month (UTC)."),
      "X-Quota-Reset": {
        description: "The first instant of next month, UTC.",
        schema: { type: "string", format: "date-time" },
      },
    },
    responses: {
      Unauthorized: {
        description:
          "No key, an unknown key (a rotated key's old secret too, once its grace has ended), or a revoked or " +
          "expired key. The same three bodies on every endpoint.",
        content: jsonContent(errorSchema(UNAUTHORIZED), {
          missing_key: errorExample(API_ERRORS.missingKey, "No `Authorization: Bearer <key>` header"),
          unknown_key: errorExample(API_ERRORS.unknownKey, "A key this server does not know"),
          revoked_key: errorExample(API_ERRORS.revokedKey, "A revoked key"),
        }),
      },
      Forbidden: {
        description:
          "The key lacks the permission this route needs (`check` for the checks and the batch, `report` for " +
          "reports), or the client address is outside the key's allowed networks (`--allow-from`). Before the " +
          "rate limit: no token is used.",
        content: jsonContent(errorSchema([API_ERRORS.forbidden]), {
          forbidden: errorExample(API_ERRORS.forbidden, "A key without the permission"),
          outside_networks: errorExample(
            outsideNetworks("192.0.2.1"),
            "A key limited to 10.0.0.0/8, used from 192.0.2.1",
          ),
        }),
      },
      NotManage: {
        description:
          "The key lacks the `manage` permission (a key made for the checks), or the client address is outside " +
          "the key's allowed networks (`--allow-from`). Before the rate limit: no token is used.",
        content: jsonContent(errorSchema([API_ERRORS.forbiddenManage]), {
          forbidden: errorExample(API_ERRORS.forbiddenManage, "A key made with only `check`"),
        }),
      },
      ManageRateLimited: {
        description: "The key's rate limit is used up; nothing was changed.",
        headers: RETRY_HEADERS,
        content: jsonContent(errorSchema([API_ERRORS.rateLimited], true), {
          rate_limit_exceeded: errorExample(API_ERRORS.rateLimited, "Beyond the key's bucket"),
        }),
      },
      InternalError: {
        description: "A failure the server did not expect; the details are in its log, never in the answer.",
        content: jsonContent(errorSchema([API_ERRORS.internal]), {
          internal_error: errorExample(API_ERRORS.internal, "Any failure"),
        }),
      },
    },
  },
};

/**
 * The document: every schema with an `$id` that the operations or the frame use is written once
 * under `components.schemas` and referred to by `$ref` wherever it appears.
 */
function assembled(): { readonly paths: PathOperations; readonly components: object } {
  const schemas: Record<string, unknown> = {};
  const walk = (value: unknown, component = false): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value === null || typeof value !== "object") return value;
    const { $id, ...rest } = value as { $id?: string };
    if ($id !== undefined && !component) {
      if (!($id in schemas)) schemas[$id] = walk(value, true);
      return { $ref: `#/components/schemas/${$id}` };
    }
    return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, walk(v)]));
  };
  const document = walk({ ...FRAME, paths: PATHS }) as { paths: PathOperations; components: object };
  return { ...document, components: { ...document.components, schemas } };
}

let json: string | undefined;

/** Served as is: built when first asked for (a start need not wait for it), once. */
export function openApiJson(): string {
  json ??= JSON.stringify(assembled());
  return json;
}
