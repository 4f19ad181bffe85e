import pkg from "../../package.json" with { type: "json" };
import { API_ERRORS, type ApiError } from "./errors.ts";
import { REPORT_CATEGORIES, REPORT_PROBLEMS } from "../reports/report.ts";
import { BATCH_EXAMPLES, EMAIL_EXAMPLES, IP_EXAMPLES, OVERRIDE_EXAMPLES, REPORT_EXAMPLES } from "./openapi-examples.ts";
import { MAX_BATCH_ITEMS } from "./batch-limits.ts";
import { outsideNetworks } from "./key-use.ts";

/**
 * The OpenAPI 3.1 description of the HTTP API, served at `GET /openapi.json`. Its
 * examples are real answers on the bundled data; test/http/openapi.test.ts checks them,
 * and every documented status, against the running app.
 */

const ref = (kind: "schemas" | "headers" | "responses" | "parameters", name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});
const jsonContent = (schema: object, examples?: Record<string, { summary: string; value: unknown }>) => ({
  "application/json": { schema, ...(examples ? { examples } : {}) },
});
const errorExample = (e: ApiError, summary: string) => ({
  summary,
  value:
    e.status === 429
      ? { error: e.error, message: e.message, retry_after: e.error === "quota_exceeded" ? 86400 : 60 }
      : { error: e.error, message: e.message },
});
const errorSchema = (errors: readonly Pick<ApiError, "error">[], retryAfter?: boolean) => ({
  allOf: [ref("schemas", retryAfter ? "RetryableError" : "Error")],
  properties: { error: { enum: errors.map((e) => e.error) } },
});

const RATE_HEADERS = {
  "X-RateLimit-Limit": ref("headers", "X-RateLimit-Limit"),
  "X-RateLimit-Remaining": ref("headers", "X-RateLimit-Remaining"),
};
const QUOTA_HEADERS = {
  "X-Quota-Limit": ref("headers", "X-Quota-Limit"),
  "X-Quota-Remaining": ref("headers", "X-Quota-Remaining"),
  "X-Quota-Reset": ref("headers", "X-Quota-Reset"),
};
const UNAUTHORIZED = [API_ERRORS.missingKey, API_ERRORS.unknownKey, API_ERRORS.revokedKey] as const;

const integerHeader = (description: string) => ({ description, schema: { type: "string", pattern: "^[0-9]+$" } });

export const OPENAPI_DOCUMENT = {
  openapi: "3.1.0",
  info: {
    title: "riskcheck",
    version: pkg.version,
    summary: "Self-hosted email and IP risk checks",
    description: [
      "Every answer comes from the appliance's own datasets: no network call per request.",
      "The two checks need `Authorization: Bearer <key>` (keys from the dashboard or `riskcheck keys create`).",
      'Keys carry permissions: `check` (the checks; every key made without a word on it), `report` (POST /v1/reports) and `manage` (the override lines, /v1/overrides; never given unless asked for). A key without the one a route needs gets `403 {"error":"forbidden",…}`.',
      "The order of checks is: authentication, permission, rate limit, quota (IP check and batch only), parameter validation.",
      'Unknown paths and other methods answer `404 {"error":"not_found","message":…}`.',
    ].join("\n\n"),
  },
  tags: [
    { name: "checks", description: "The API: email and IP checks, with a key" },
    { name: "operations", description: "Health, data provenance, this document and metrics: no key" },
    {
      name: "overrides",
      description:
        "The operator's override lines for addresses, ranges, networks and email domains, with a key that may `manage`",
    },
  ],
  paths: {
    "/v1/check": {
      get: {
        tags: ["checks"],
        operationId: "checkEmail",
        summary: "Is an email address's domain disposable, is it a free provider",
        security: [{ apiKey: [] }],
        parameters: [
          {
            name: "email",
            in: "query",
            required: true,
            description:
              "The address, percent-decoded only (a literal `+` stays `+`). Absent or empty: `missing_parameter`; given twice or malformed: `invalid_email`.",
            schema: { type: "string", maxLength: 254 },
            example: "someone@mailinator.com",
          },
          {
            name: "explain",
            in: "query",
            required: false,
            description:
              "`explain`, `explain=1`, `=true` or `=yes` add `reasons`: the rule that decided and its entry, every list that names the domain or the parent that matched (with when this appliance first and last saw it there, whether the list verifies entries and which lists it copies), the override or allowlist line that applied, the evidence rule in force, a confidence, the relay service, and hints that never change the verdict (`did_you_mean`, `role_account`, `normalized`). `=0`, `=false`, `=no` or absent: the spec's four fields, byte for byte.",
            schema: { type: "string" },
            example: "1",
          },
        ],
        responses: {
          "200": {
            description: "The verdict on the address's domain.",
            headers: RATE_HEADERS,
            content: jsonContent(ref("schemas", "EmailCheck"), EMAIL_EXAMPLES),
          },
          "400": {
            description: "No address, or not a valid one.",
            headers: RATE_HEADERS,
            content: jsonContent(errorSchema([API_ERRORS.missingEmail, API_ERRORS.invalidEmail]), {
              missing_parameter: errorExample(API_ERRORS.missingEmail, "GET /v1/check"),
              invalid_email: errorExample(API_ERRORS.invalidEmail, "GET /v1/check?email=not-an-address"),
            }),
          },
          "401": ref("responses", "Unauthorized"),
          "403": ref("responses", "Forbidden"),
          "429": {
            description: "The key's rate limit is used up.",
            headers: { ...RATE_HEADERS, "X-RateLimit-Reset": ref("headers", "X-RateLimit-Reset") },
            content: jsonContent(errorSchema([API_ERRORS.rateLimited], true), {
              rate_limit_exceeded: errorExample(API_ERRORS.rateLimited, "Beyond the key's bucket"),
            }),
          },
          "500": ref("responses", "InternalError"),
        },
      },
    },
    "/v1/ip-reputation-check": {
      get: {
        tags: ["checks"],
        operationId: "checkIp",
        summary: "Geolocation, network owner and reputation of an IP address",
        security: [{ apiKey: [] }],
        parameters: [
          {
            name: "ip",
            in: "query",
            required: false,
            description:
              "IPv4 as canonical dotted-quad decimal, or IPv6 in any RFC 4291 form (answered in RFC 5952 form; IPv4-mapped IPv6 is answered as IPv4). Omitted: the caller's own address.",
            schema: { type: "string", maxLength: 64 },
            example: "81.2.69.142",
          },
          {
            name: "explain",
            in: "query",
            required: false,
            description:
              "`explain`, `explain=1`, `=true` or `=yes` add `reputation.reasons`: the rule that set the level with its threshold, every list's word on the address (with the reports it adds and when this appliance first and last saw it there), and where each kind came from. `=0`, `=false`, `=no` or absent: the spec's body only.",
            schema: { type: "string" },
            example: "1",
          },
        ],
        responses: {
          "200": {
            description:
              "What the datasets say about the address. Every address that is not global unicast (private, loopback, CGNAT, documentation …) gets empty strings, zero coordinates, a clean `ok` reputation and no `flag`, without any lookup.",
            headers: { ...RATE_HEADERS, ...QUOTA_HEADERS },
            content: jsonContent(ref("schemas", "IpCheck"), IP_EXAMPLES),
          },
          "400": {
            description:
              "Not an IP address in an accepted form (`1.2.3`, `01.2.3.4`, `0x7f.0.0.1`, surrounding spaces …).",
            headers: { ...RATE_HEADERS, ...QUOTA_HEADERS },
            content: jsonContent(errorSchema([API_ERRORS.invalidIp]), {
              invalid_ip: errorExample(API_ERRORS.invalidIp, "GET /v1/ip-reputation-check?ip=1.2.3"),
            }),
          },
          "401": ref("responses", "Unauthorized"),
          "403": ref("responses", "Forbidden"),
          "429": {
            description:
              "The key's rate limit or its monthly quota is used up. For the quota, `X-RateLimit-Reset` is the seconds until the month ends (UTC).",
            headers: { ...RATE_HEADERS, "X-RateLimit-Reset": ref("headers", "X-RateLimit-Reset"), ...QUOTA_HEADERS },
            content: jsonContent(errorSchema([API_ERRORS.rateLimited, API_ERRORS.quotaExceeded], true), {
              rate_limit_exceeded: errorExample(API_ERRORS.rateLimited, "Beyond the key's bucket"),
              quota_exceeded: errorExample(
                API_ERRORS.quotaExceeded,
                "Beyond the key's monthly quota of successful IP checks",
              ),
            }),
          },
          "500": ref("responses", "InternalError"),
        },
      },
    },
    "/v1/check/batch": {
      post: {
        tags: ["checks"],
        operationId: "checkBatch",
        summary: "Up to 1,000 email addresses and IP addresses in one request",
        description:
          "Each item's answer is exactly what the GET endpoint answers for that value, in input order, or `{input, error, message}` for an invalid one. One rate-limit token for the whole request. Every IP item counts toward the monthly quota: a batch with more IP items than the quota has left is refused whole with the quota's 429; the IP items answered are used up.",
        security: [{ apiKey: [] }],
        parameters: [
          {
            name: "explain",
            in: "query",
            required: false,
            description:
              "As for the two GET checks: adds `reasons` to every email item and `reputation.reasons` to every IP item, each item then exactly the GET answer with `explain=1` (the operator's override lines and the evidence rule in force included).",
            schema: { type: "string" },
            example: "1",
          },
        ],
        requestBody: {
          required: true,
          description:
            "At most 1 MiB of JSON, at most 1,000 items in the two lists together; either list may be left out.",
          content: jsonContent(ref("schemas", "BatchRequest"), {
            mixed: { summary: "Two emails and two IPs", value: BATCH_EXAMPLES.request },
          }),
        },
        responses: {
          "200": {
            description: "The answers, in the order of the request's lists.",
            headers: { ...RATE_HEADERS, ...QUOTA_HEADERS },
            content: jsonContent(ref("schemas", "BatchAnswer"), {
              mixed: { summary: "POST /v1/check/batch with the request's example", value: BATCH_EXAMPLES.answer },
            }),
          },
          "400": {
            description:
              "The body is no batch: not JSON, not an object of the two lists, an unknown field, or over 1,000 items.",
            headers: RATE_HEADERS,
            content: jsonContent(errorSchema([API_ERRORS.invalidBatch, API_ERRORS.tooManyItems]), {
              invalid_body: errorExample(API_ERRORS.invalidBatch, '{"ip": ["8.8.8.8"]}'),
              too_many_items: errorExample(API_ERRORS.tooManyItems, "1,001 items"),
            }),
          },
          "401": ref("responses", "Unauthorized"),
          "403": ref("responses", "Forbidden"),
          "413": {
            description: "The body is over 1 MiB.",
            headers: RATE_HEADERS,
            content: jsonContent(errorSchema([API_ERRORS.batchTooLarge]), {
              body_too_large: errorExample(API_ERRORS.batchTooLarge, "A body over 1 MiB"),
            }),
          },
          "429": {
            description:
              "The key's rate limit is used up, or the batch's IP items do not fit in what is left of its monthly quota; nothing was answered or counted.",
            headers: { ...RATE_HEADERS, "X-RateLimit-Reset": ref("headers", "X-RateLimit-Reset"), ...QUOTA_HEADERS },
            content: jsonContent(errorSchema([API_ERRORS.rateLimited, API_ERRORS.quotaExceeded], true), {
              rate_limit_exceeded: errorExample(API_ERRORS.rateLimited, "Beyond the key's bucket"),
              quota_exceeded: errorExample(
                API_ERRORS.quotaExceeded,
                "More IP items than the key's monthly quota has left",
              ),
            }),
          },
          "500": ref("responses", "InternalError"),
        },
      },
    },
    "/v1/reports": {
      post: {
        tags: ["checks"],
        operationId: "report",
        summary: "Report abusive addresses your own services saw: the verdict's `local` source",
        description:
          'One report, or `{"reports": [...]}` with up to 1,000. Needs a key with the `report` permission; one rate-limit token per request, no quota. A key\'s repeat of a report (same address and category) within RISKCHECK_REPORT_DEDUP (24 h) is a duplicate. A key reports at most RISKCHECK_REPORT_KEY_DAILY_LIMIT distinct addresses a day (UTC); a report of a further one is rejected with `limit_reached`. In the IP check, `local` adds the number of distinct keys that reported the address within RISKCHECK_REPORT_WINDOW (90 days), each key once whatever its categories. The 200 is sent once the accepted reports are committed.',
        security: [{ apiKey: [] }],
        requestBody: {
          required: true,
          description: "At most 1 MiB of JSON.",
          content: jsonContent(ref("schemas", "ReportRequest"), {
            batch: {
              summary: "Three reports, one a duplicate and one of a private address",
              value: REPORT_EXAMPLES.request,
            },
          }),
        },
        responses: {
          "200": {
            description:
              "How many reports were accepted and how many were duplicates; each rejected item by its index, with its error.",
            headers: RATE_HEADERS,
            content: jsonContent(ref("schemas", "ReportAnswer"), {
              batch: { summary: "POST /v1/reports with the request's example", value: REPORT_EXAMPLES.answer },
            }),
          },
          "400": {
            description:
              'The body is not JSON, not one report nor `{"reports": [...]}`, holds over 1,000 reports, or is one report that is wrong (its error).',
            headers: RATE_HEADERS,
            content: jsonContent(
              errorSchema([
                API_ERRORS.invalidReports,
                API_ERRORS.tooManyReports,
                ...Object.keys(REPORT_PROBLEMS)
                  .filter((error) => error !== "limit_reached")
                  .map((error) => ({ error })),
              ]),
              {
                invalid_body: errorExample(API_ERRORS.invalidReports, "Not JSON"),
                too_many_items: errorExample(API_ERRORS.tooManyReports, "1,001 reports"),
                private_address: {
                  summary: '{"ip": "10.0.0.1", "category": "bot"}',
                  value: { error: "private_address", message: REPORT_PROBLEMS.private_address },
                },
              },
            ),
          },
          "401": ref("responses", "Unauthorized"),
          "403": ref("responses", "Forbidden"),
          "413": {
            description: "The body is over 1 MiB.",
            headers: RATE_HEADERS,
            content: jsonContent(errorSchema([API_ERRORS.reportsTooLarge]), {
              body_too_large: errorExample(API_ERRORS.reportsTooLarge, "A body over 1 MiB"),
            }),
          },
          "429": {
            description: "The key's rate limit is used up; nothing was stored.",
            headers: { ...RATE_HEADERS, "X-RateLimit-Reset": ref("headers", "X-RateLimit-Reset") },
            content: jsonContent(errorSchema([API_ERRORS.rateLimited], true), {
              rate_limit_exceeded: errorExample(API_ERRORS.rateLimited, "Beyond the key's bucket"),
            }),
          },
          "500": ref("responses", "InternalError"),
          "503": {
            description:
              "Another process holds the database's write lock (over 2 s): nothing was stored; send the same request again after `Retry-After` seconds.",
            headers: {
              ...RATE_HEADERS,
              "Retry-After": integerHeader("Seconds to wait before sending the request again."),
            },
            content: jsonContent(errorSchema([API_ERRORS.storeBusy]), {
              service_unavailable: errorExample(API_ERRORS.storeBusy, "The database locked by a backup"),
            }),
          },
        },
      },
    },
    "/v1/overrides": {
      get: {
        tags: ["overrides"],
        operationId: "listOverrides",
        summary:
          "The override lines, IP and email, with reason, author and expiry; expired lines too (`active: false`)",
        security: [{ apiKey: [] }],
        parameters: [
          {
            name: "kind",
            in: "query",
            required: false,
            description: "Only the lines of this kind.",
            schema: { type: "string", enum: ["ip", "email"] },
          },
        ],
        responses: {
          "200": {
            description: "Every stored line; the lines of `data/ip/allowlist.txt` apply too but are not listed.",
            headers: RATE_HEADERS,
            content: jsonContent(ref("schemas", "OverrideList"), {
              lines: { summary: "An IP line and an email line", value: OVERRIDE_EXAMPLES.list },
            }),
          },
          "400": {
            description: "`kind` is neither ip nor email.",
            headers: RATE_HEADERS,
            content: jsonContent(errorSchema([API_ERRORS.unknownOverrideKind]), {
              unknown_kind: errorExample(API_ERRORS.unknownOverrideKind, "?kind=asn"),
            }),
          },
          "401": ref("responses", "Unauthorized"),
          "403": ref("responses", "NotManage"),
          "429": ref("responses", "ManageRateLimited"),
        },
      },
      post: {
        tags: ["overrides"],
        operationId: "addOverride",
        summary:
          "Add a line, or replace the line of the same target; every instance applies it within 3 s (IP) or 10 s (email), this one at once",
        description:
          "An IP line's target is an address, a CIDR range (IPv4 or IPv6) or an AS number (`AS15169`): `allow` makes the verdict `ok`, not risky, `deny` makes it `bad`, risky, whatever the feeds and reports say; where lines overlap the most specific decides. An email line's target is a domain, its subdomains included: `allow` never disposable, `deny` always. The author is the key's name.",
        security: [{ apiKey: [] }],
        requestBody: {
          required: true,
          description: "At most 8 KiB of JSON.",
          content: jsonContent(ref("schemas", "OverrideRequest"), {
            range: { summary: "Allow an office's range until the end of 2026", value: OVERRIDE_EXAMPLES.request },
          }),
        },
        responses: {
          "201": {
            description: "The line as stored.",
            headers: RATE_HEADERS,
            content: jsonContent(ref("schemas", "Override"), {
              added: { summary: "POST /v1/overrides with the request's example", value: OVERRIDE_EXAMPLES.line },
            }),
          },
          "400": {
            description: "The body is not such JSON, or the line is wrong: its error says which part.",
            headers: RATE_HEADERS,
            content: jsonContent(
              errorSchema([
                API_ERRORS.invalidOverride,
                API_ERRORS.unknownOverrideKind,
                API_ERRORS.invalidOverrideAction,
                ...[
                  "invalid_target",
                  "missing_reason",
                  "public_suffix",
                  "invalid_reason",
                  "invalid_until",
                  "until_passed",
                ].map((error) => ({ error })),
              ]),
              {
                invalid_body: errorExample(API_ERRORS.invalidOverride, "Not JSON"),
                unknown_kind: errorExample(API_ERRORS.unknownOverrideKind, '{"kind": "asn", …}'),
                ...Object.fromEntries(
                  Object.entries(OVERRIDE_EXAMPLES.refusals).map(([error, { request, message }]) => [
                    error,
                    { summary: JSON.stringify(request), value: { error, message } },
                  ]),
                ),
              },
            ),
          },
          "401": ref("responses", "Unauthorized"),
          "403": ref("responses", "NotManage"),
          "429": ref("responses", "ManageRateLimited"),
        },
      },
    },
    "/v1/overrides/{id}": {
      delete: {
        tags: ["overrides"],
        operationId: "removeOverride",
        summary:
          "Remove a line; the feeds and lists decide again (every instance within 3 s for IP, 10 s for email, this one at once)",
        security: [{ apiKey: [] }],
        parameters: [
          {
            name: "id",
            in: "path",
            required: true,
            description:
              "The line's `id`: its kind and target, a range's `/` written `-` (`ip:203.0.113.0-24`, `ip:2001:db8::-32`, `ip:AS64500`, `email:example.com`); an encoded `%2F` is taken too.",
            schema: { type: "string" },
          },
        ],
        responses: {
          "204": { description: "The line was removed.", headers: RATE_HEADERS },
          "401": ref("responses", "Unauthorized"),
          "403": ref("responses", "NotManage"),
          "404": {
            description: "No line has this id.",
            headers: RATE_HEADERS,
            content: jsonContent(errorSchema([API_ERRORS.overrideNotFound]), {
              override_not_found: errorExample(API_ERRORS.overrideNotFound, "DELETE /v1/overrides/ip:192.0.2.1"),
            }),
          },
          "429": ref("responses", "ManageRateLimited"),
        },
      },
    },
    "/healthz": {
      get: {
        tags: ["operations"],
        operationId: "health",
        summary: "Liveness, and the datasets being served with their dates",
        security: [],
        responses: {
          "200": {
            description: "The server is up with its datasets loaded.",
            content: jsonContent(ref("schemas", "Health")),
          },
        },
      },
    },
    "/v1/about": {
      get: {
        tags: ["operations"],
        operationId: "about",
        summary: "The dataset version, and each source's origin, dates and licence",
        security: [],
        responses: {
          "200": { description: "Where the data comes from.", content: jsonContent(ref("schemas", "About")) },
        },
      },
    },
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
    "/metrics": {
      get: {
        tags: ["operations"],
        operationId: "metrics",
        summary: "Prometheus metrics",
        description:
          "Open unless `RISKCHECK_METRICS_TOKEN` is set; then the token is needed as `Authorization: Bearer <token>`.",
        security: [{}, { metricsToken: [] }],
        responses: {
          "200": {
            description:
              "Prometheus text format 0.0.4: `riskcheck_requests_total{endpoint,status}`, `riskcheck_request_duration_seconds{endpoint}` (histogram), `riskcheck_dataset_age_seconds{dataset}`, `riskcheck_update_last_success_timestamp_seconds`, `riskcheck_keys{status}`, `riskcheck_build_info{version}`, `process_start_time_seconds`, `process_resident_memory_bytes`.",
            content: { "text/plain; version=0.0.4; charset=utf-8": { schema: { type: "string" } } },
          },
          "401": {
            description: "`RISKCHECK_METRICS_TOKEN` is set and the request did not carry it.",
            headers: {
              "WWW-Authenticate": {
                description: 'Always `Bearer realm="metrics"`.',
                schema: { type: "string", const: 'Bearer realm="metrics"' },
              },
            },
            content: jsonContent(errorSchema([API_ERRORS.metricsTokenRequired]), {
              unauthorized: errorExample(API_ERRORS.metricsTokenRequired, "GET /metrics without the token"),
            }),
          },
        },
      },
    },
  },
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
        "The key's monthly quota of successful IP checks; the private answer (an address outside global unicast) uses none. The quota headers are absent when the quota is off.",
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
          "No key, an unknown key (a rotated key's old secret too, once its grace has ended), or a revoked or expired key. The same three bodies on every endpoint.",
        content: jsonContent(errorSchema(UNAUTHORIZED), {
          missing_key: errorExample(API_ERRORS.missingKey, "No `Authorization: Bearer <key>` header"),
          unknown_key: errorExample(API_ERRORS.unknownKey, "A key this server does not know"),
          revoked_key: errorExample(API_ERRORS.revokedKey, "A revoked key"),
        }),
      },
      Forbidden: {
        description:
          "The key lacks the permission this route needs (`check` for the checks and the batch, `report` for reports), or the client address is outside the key's allowed networks (`--allow-from`). Before the rate limit: no token is used.",
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
          "The key lacks the `manage` permission (a key made for the checks), or the client address is outside the key's allowed networks (`--allow-from`). Before the rate limit: no token is used.",
        content: jsonContent(errorSchema([API_ERRORS.forbiddenManage]), {
          forbidden: errorExample(API_ERRORS.forbiddenManage, "A key made with only `check`"),
        }),
      },
      ManageRateLimited: {
        description: "The key's rate limit is used up; nothing was changed.",
        headers: { ...RATE_HEADERS, "X-RateLimit-Reset": ref("headers", "X-RateLimit-Reset") },
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
    schemas: {
      Error: {
        type: "object",
        required: ["error", "message"],
        properties: {
          error: { type: "string", description: "Machine-readable code." },
          message: { type: "string", description: "For people." },
        },
      },
      RetryableError: {
        allOf: [{ $ref: "#/components/schemas/Error" }],
        required: ["retry_after"],
        properties: {
          retry_after: {
            type: "integer",
            description:
              "Seconds, fixed by the spec: 60 for the rate limit, 86400 for the quota. The headers tell the actual wait.",
            enum: [60, 86400],
          },
        },
      },
      ReportRequest: {
        oneOf: [
          ref("schemas", "Report"),
          {
            type: "object",
            additionalProperties: false,
            required: ["reports"],
            properties: {
              reports: {
                type: "array",
                maxItems: MAX_BATCH_ITEMS,
                items: {},
                description: "Reports; an item that is no report is rejected by its index.",
              },
            },
          },
        ],
      },
      Report: {
        type: "object",
        additionalProperties: false,
        required: ["ip", "category"],
        properties: {
          ip: {
            type: "string",
            description: "A global unicast address; private and reserved space cannot be reported.",
          },
          category: { type: "string", enum: [...REPORT_CATEGORIES] },
          comment: { type: "string", description: "At most 1,024 bytes, kept for the operator." },
        },
      },
      OverrideRequest: {
        type: "object",
        required: ["kind", "target", "action", "reason"],
        properties: {
          kind: { type: "string", enum: ["ip", "email"] },
          target: {
            type: "string",
            description: "ip: an address, a CIDR range without host bits, or an AS number (AS15169); email: a domain.",
          },
          action: { type: "string", enum: ["allow", "deny"] },
          reason: {
            type: "string",
            minLength: 1,
            maxLength: 500,
            description: "Why: shown in `?explain=1` answers and the dashboard.",
          },
          until: {
            type: ["string", "null"],
            description:
              "The line stops applying after this day (YYYY-MM-DD, UTC, the day included) or instant (ISO 8601); absent or null: until removed.",
          },
        },
      },
      Override: {
        type: "object",
        additionalProperties: false,
        required: ["id", "kind", "target", "action", "reason", "author", "created", "until", "active"],
        properties: {
          id: { type: "string", description: "For DELETE /v1/overrides/{id}." },
          kind: { type: "string", enum: ["ip", "email"] },
          target: {
            type: "string",
            description: 'As kept: "203.0.113.7", "203.0.113.0/24", "2001:db8::/32", "AS15169", "example.com".',
          },
          action: { type: "string", enum: ["allow", "deny"] },
          reason: { type: "string" },
          author: { type: "string", description: "The key's name, the CLI's user, or \"dashboard\"." },
          created: { type: "string", format: "date-time" },
          until: { type: ["string", "null"], format: "date-time" },
          active: { type: "boolean", description: "False once `until` has passed: the line no longer applies." },
        },
      },
      OverrideList: {
        type: "object",
        additionalProperties: false,
        required: ["overrides"],
        properties: { overrides: { type: "array", items: ref("schemas", "Override") } },
      },
      ReportAnswer: {
        type: "object",
        additionalProperties: false,
        required: ["accepted", "duplicates", "rejected"],
        properties: {
          accepted: { type: "integer", minimum: 0 },
          duplicates: { type: "integer", minimum: 0 },
          rejected: {
            type: "array",
            items: {
              type: "object",
              additionalProperties: false,
              required: ["index", "error", "message"],
              properties: {
                index: { type: "integer", minimum: 0 },
                error: { type: "string", enum: Object.keys(REPORT_PROBLEMS) },
                message: { type: "string" },
              },
            },
          },
        },
      },
      BatchRequest: {
        type: "object",
        additionalProperties: false,
        properties: {
          emails: {
            type: "array",
            maxItems: MAX_BATCH_ITEMS,
            items: {},
            description: "Email addresses; an item that is not a string is an invalid one.",
          },
          ips: {
            type: "array",
            maxItems: MAX_BATCH_ITEMS,
            items: {},
            description: "IP addresses, in the forms the IP check takes.",
          },
        },
      },
      BatchAnswer: {
        type: "object",
        additionalProperties: false,
        required: ["emails", "ips"],
        properties: {
          emails: { type: "array", items: { oneOf: [ref("schemas", "EmailCheck"), ref("schemas", "InvalidItem")] } },
          ips: { type: "array", items: { oneOf: [ref("schemas", "IpCheck"), ref("schemas", "InvalidItem")] } },
        },
      },
      InvalidItem: {
        type: "object",
        additionalProperties: false,
        required: ["input", "error", "message"],
        properties: {
          input: { description: "The item as it was sent." },
          error: {
            type: "string",
            enum: [API_ERRORS.invalidEmail.error, API_ERRORS.invalidIp.error],
            description: "The GET endpoint's error for it.",
          },
          message: { type: "string" },
        },
      },
      EmailCheck: {
        type: "object",
        additionalProperties: false,
        required: ["email", "is_disposable", "domain", "free_email"],
        properties: {
          email: { type: "string", description: "The address as received." },
          is_disposable: {
            type: "boolean",
            description:
              "The domain, or a parent that is not a public suffix, is on a disposable list (the operator allowlist wins).",
          },
          domain: { type: "string", description: "The domain, normalised to lower-case ASCII (punycode)." },
          free_email: {
            type: "boolean",
            description: "An exact match on the free-provider list; never for a disposable domain.",
          },
          reasons: { $ref: "#/components/schemas/EmailReasons" },
        },
      },
      EmailReasons: {
        type: "object",
        additionalProperties: false,
        description: "Only with `?explain=1`: why the domain has its verdict.",
        required: [
          "rule",
          "matched",
          "evidence_rule",
          "evidence",
          "confidence",
          "sources",
          "role_account",
          "normalized",
        ],
        properties: {
          rule: {
            type: "string",
            enum: [
              "denylisted",
              "allowlisted",
              "relay",
              "listed",
              "wildcard",
              "parent-listed",
              "family",
              "reserved-name",
              "disputed",
              "below-evidence",
              "not-listed",
            ],
            description:
              "What decided `is_disposable`: an operator's override line, the allowlist, a privacy relay, a listing (exact, wildcard, of a parent), a family of listed names under one registrable domain, a reserved name; or, not disposable, a listing held back as disputed or below the evidence rule, or none.",
          },
          matched: {
            type: ["string", "null"],
            description: "The entry that decided: the domain, a parent, an override or allowlist line.",
          },
          evidence_rule: {
            type: "string",
            enum: ["any", "corroborated", "strict"],
            description: "RISKCHECK_EMAIL_EVIDENCE in force.",
          },
          evidence: {
            type: "string",
            enum: ["verified", "independent", "single", "copied", "none"],
            description:
              "What the listing of the matched entry amounts to: a verifying list, two or more independent lists, one list that copies no other, only lists that copy others, nothing.",
          },
          confidence: { type: "string", enum: ["high", "medium", "low"] },
          sources: {
            type: "array",
            items: {
              type: "object",
              additionalProperties: false,
              required: ["source", "entry", "match", "first_seen", "last_seen", "remembered", "verifies", "copies"],
              properties: {
                source: { type: "string", description: "The list, as named in sources.json." },
                entry: { type: "string" },
                match: { type: "string", enum: ["exact", "parent", "wildcard"] },
                first_seen: {
                  type: ["string", "null"],
                  format: "date-time",
                  description: "When this appliance's updates first saw the entry on the list.",
                },
                last_seen: {
                  type: ["string", "null"],
                  format: "date-time",
                  description:
                    "When an update last confirmed the list; for a remembered entry, when the list last carried it.",
                },
                remembered: {
                  type: "boolean",
                  description:
                    "A rolling list (a daily top list) no longer carries the entry: it stays disposable for the list's retention after `last_seen`.",
                },
                verifies: { type: "boolean", description: "The list asks for evidence per entry." },
                copies: {
                  type: "array",
                  items: { type: "string" },
                  description: "The lists it is known to copy (its `includes`, followed through).",
                },
              },
            },
          },
          override: {
            type: "object",
            additionalProperties: false,
            required: ["domain", "action", "reason", "author", "created", "until"],
            properties: {
              domain: { type: "string" },
              action: { type: "string", enum: ["allow", "deny"] },
              reason: { type: "string" },
              author: { type: "string" },
              created: { type: "string", format: "date-time" },
              until: { type: ["string", "null"], format: "date-time" },
            },
          },
          allowlist: {
            type: "object",
            additionalProperties: false,
            required: ["entry", "reason"],
            properties: {
              entry: { type: "string" },
              reason: { type: ["string", "null"], description: "The line's comment in data/email/allowlist.txt." },
            },
          },
          free: {
            type: "object",
            additionalProperties: false,
            required: ["list"],
            properties: { list: { type: "string" } },
          },
          relay: {
            type: "object",
            additionalProperties: false,
            required: ["service"],
            properties: { service: { type: "string" } },
          },
          family: {
            type: "object",
            additionalProperties: false,
            required: ["domain", "members"],
            description:
              "With rule `family`: the registrable domain under which enough listed names lie that it and all its names are disposable, and how many.",
            properties: { domain: { type: "string" }, members: { type: "integer", minimum: 1 } },
          },
          did_you_mean: { type: "string", description: "The major provider the domain is probably a typo of." },
          role_account: {
            type: "boolean",
            description: "The local part names a role (postmaster, info, support …), not a person.",
          },
          normalized: {
            type: "string",
            description:
              "The mailbox the address reaches: sub-address cut, dots removed where the provider ignores them.",
          },
        },
      },
      IpCheck: {
        type: "object",
        additionalProperties: false,
        required: [
          "ip",
          "country",
          "country_code",
          "region",
          "region_name",
          "city",
          "subdivisions",
          "connection_type",
          "is_anycast",
          "zip",
          "latitude",
          "longitude",
          "timezone",
          "isp",
          "organization",
          "asn",
          "reputation",
        ],
        properties: {
          ip: { type: "string", description: "The address checked, in canonical form." },
          country: { type: "string", description: "English country name; empty when unknown." },
          country_code: {
            type: "string",
            description: "ISO 3166-1 alpha-2; empty when unknown.",
            pattern: "^([A-Z]{2})?$",
          },
          flag: {
            type: "string",
            description:
              "The country's flag emoji (empty when unknown); absent for addresses that are not global unicast.",
          },
          region: { type: "string", description: "ISO 3166-2 subdivision code without the country prefix." },
          region_name: { type: "string" },
          city: { type: "string" },
          subdivisions: { type: "string", description: "Further subdivisions, joined; may be empty." },
          connection_type: {
            type: "string",
            description: "`Corporate`, `Residential`, `Cellular`, `Satellite` or empty.",
          },
          is_anycast: { type: "boolean" },
          zip: { type: "string" },
          latitude: { type: "number", minimum: -90, maximum: 90 },
          longitude: { type: "number", minimum: -180, maximum: 180 },
          timezone: { type: "string", description: "IANA time zone; empty when unknown." },
          isp: { type: "string" },
          organization: { type: "string" },
          asn: {
            type: "string",
            description: "`AS<number> <organisation>`; empty when unknown.",
            pattern: "^(AS[0-9]+ .*)?$",
          },
          reputation: { $ref: "#/components/schemas/Reputation" },
        },
      },
      Reputation: {
        type: "object",
        additionalProperties: false,
        required: ["risky", "reputation", "bot", "probe", "rate", "attack", "crawler", "sum", "kind"],
        properties: {
          risky: { type: "boolean", description: "True for `bad` and `warning`." },
          reputation: { type: "string", enum: ["bad", "warning", "suspicious", "informative", "ok"] },
          bot: { type: "integer", minimum: 0 },
          probe: { type: "integer", minimum: 0 },
          rate: { type: "integer", minimum: 0 },
          attack: { type: "integer", minimum: 0 },
          crawler: { type: "integer", minimum: 0 },
          sum: { type: "integer", minimum: 0, description: "bot + probe + rate + attack + crawler" },
          kind: {
            type: "array",
            uniqueItems: true,
            items: { type: "string", enum: ["hosting", "vpn", "scanner", "crawler", "isp", "education", "dynamic"] },
          },
          reasons: { $ref: "#/components/schemas/ReputationReasons" },
        },
      },
      ReputationReasons: {
        description: "Only with `?explain=1`: why the address has its level.",
        type: "object",
        additionalProperties: false,
        required: ["rule", "contributions", "kinds", "location_source", "location_precision"],
        properties: {
          override: {
            type: "object",
            additionalProperties: false,
            required: ["target", "action", "reason", "author", "created", "until", "source"],
            description:
              "The operator's line that decided (the rule is then `allowlisted` or `denylisted`): the most specific line covering the address or its network.",
            properties: {
              target: { type: "string" },
              action: { type: "string", enum: ["allow", "deny"] },
              reason: { type: "string" },
              author: { type: "string" },
              created: {
                type: "string",
                description: "When it was added; for a line of data/ip/allowlist.txt, the file's modification time.",
              },
              until: { type: ["string", "null"], format: "date-time" },
              source: {
                type: "string",
                enum: ["database", "allowlist-file"],
                description: "`riskcheck ip allow|deny`, the dashboard or the admin API; or data/ip/allowlist.txt.",
              },
            },
          },
          rule: {
            type: "object",
            additionalProperties: false,
            required: ["id", "level", "reports"],
            description: "The rule that set the level, first match wins.",
            properties: {
              id: {
                type: "string",
                enum: [
                  "allowlisted",
                  "denylisted",
                  "confirmed-bad",
                  "reports>=bad",
                  "reports>=warning",
                  "benign-cap",
                  "reports>=suspicious",
                  "kind-scanner",
                  "reports>=informative",
                  "kind-vpn-or-hosting",
                  "nothing",
                ],
              },
              level: { type: "string", enum: ["bad", "warning", "suspicious", "informative", "ok"] },
              reports: { type: "integer", minimum: 0, description: "The independent reports counted: the `sum`." },
              threshold: {
                type: "integer",
                minimum: 1,
                description: "The threshold the reports reached, for the rules that compare them.",
              },
              capped: {
                type: "object",
                required: ["from", "by"],
                description:
                  "A verified crawler, a privacy relay's exit or anycast infrastructure is never more than suspicious: the level the reports alone would give, and what capped it.",
                properties: {
                  from: { type: "string", enum: ["bad", "warning"] },
                  by: { type: "string", enum: ["verified-crawler", "relay", "anycast"] },
                },
              },
            },
          },
          contributions: {
            type: "array",
            description: "One entry per list that names the address or its network.",
            items: {
              type: "object",
              additionalProperties: false,
              required: ["source", "category", "count", "weight", "counted", "first_seen", "last_seen"],
              properties: {
                source: {
                  type: "string",
                  description: "The source (as in sources.json), or a curated or operator list.",
                },
                category: {
                  type: "string",
                  description:
                    "The counter its reports go to, or what else it says: a kind, `confirmed-bad`, `verified-crawler`, `relay`, `anycast`, `allowlisted`, `denylisted`.",
                },
                count: {
                  type: "integer",
                  minimum: 0,
                  description: "The listing's own count (ipsum: its number of lists); 1 for a plain list.",
                },
                weight: { type: "integer", minimum: 0, description: "Reports one listing counts as." },
                counted: {
                  type: "integer",
                  minimum: 0,
                  description: "Reports it adds to `sum`, once the lists it aggregates are counted.",
                },
                first_seen: {
                  type: ["string", "null"],
                  format: "date-time",
                  description: "When this appliance's updates first saw the listing; null for hand-kept lists.",
                },
                last_seen: {
                  type: ["string", "null"],
                  format: "date-time",
                  description: "When an update last confirmed the source.",
                },
                class: {
                  type: "string",
                  description:
                    "For a list of benign infrastructure, its class: `seo:googlebot`, `cloud:aws`, `cdn:cloudflare`, `relay:icloud` …",
                },
                label: {
                  type: "string",
                  description: "What the publisher says the range is, e.g. `AWS us-east-1 EC2`.",
                },
              },
            },
          },
          kinds: {
            type: "array",
            items: {
              type: "object",
              additionalProperties: false,
              required: ["kind", "from"],
              properties: {
                kind: { type: "string", enum: ["hosting", "vpn", "scanner", "crawler", "isp", "education", "dynamic"] },
                from: {
                  type: "string",
                  description: "A list of ranges, an AS number's list, or the organisation's name.",
                },
              },
            },
          },
          infrastructure: {
            type: "array",
            description:
              "Absent unless the address is on a list of benign infrastructure: each class, and whether it caps the level (crawlers, relays, anycast edges) or only labels the network (clouds).",
            items: {
              type: "object",
              additionalProperties: false,
              required: ["class", "source", "effect"],
              properties: {
                class: { type: "string" },
                source: { type: "string" },
                effect: { type: "string", enum: ["cap", "label"] },
                label: { type: "string" },
                place: {
                  type: "object",
                  additionalProperties: false,
                  required: ["country", "region", "city"],
                  description: "A relay exit's place from its geofeed row; the answer's location follows it.",
                  properties: { country: { type: "string" }, region: { type: "string" }, city: { type: "string" } },
                },
              },
            },
          },
          location_source: {
            type: "string",
            description:
              "Where the answer's location came from: `geolite2` (the city database; another database's source name, or `mmdb/<file>` for an operator's own), a cloud region the provider's own list assigns the range to (`aws:eu-central-1`, `aws:us-east-1-bue-1` for a Local Zone, `gcp:europe-west3`, `oracle:eu-frankfurt-1`), or an RFC 8805 geofeed (`geofeed:<source name>`).",
          },
          location_precision: {
            type: "string",
            enum: ["city", "region", "country", "none"],
            description:
              "How finely the answer locates the address: `city`, `region` (a subdivision, no city), `country` (the country alone: `latitude` and `longitude` are the country's representative point, and `timezone` is set only where the country has one time zone), or `none` (no location: empty strings, 0, 0).",
          },
          database_location: {
            type: "object",
            additionalProperties: false,
            required: ["country_code", "region", "city"],
            description:
              "Present when a declared location put the address in another country than the city database does: what the database says.",
            properties: { country_code: { type: "string" }, region: { type: "string" }, city: { type: "string" } },
          },
          warnings: {
            type: "array",
            items: { type: "string" },
            description: "Why the answer may say less than it should, e.g. no reputation feed loaded.",
          },
        },
      },
      Health: {
        type: "object",
        required: [
          "status",
          "uptime_seconds",
          "dataset_version",
          "snapshot_loaded_at",
          "warnings",
          "refresh",
          "datasets",
          "sources",
        ],
        properties: {
          status: { const: "ok" },
          uptime_seconds: { type: "integer", minimum: 0 },
          dataset_version: { type: "string", description: "The dataset version folder being served." },
          snapshot_loaded_at: { type: "string", format: "date-time" },
          warnings: {
            type: "array",
            items: { type: "string" },
            description:
              "What needs the operator's attention while the server keeps serving: no reputation feed loaded, a source older than its cadence, the last refresh failed or could not fetch a source, refresh off for data never refreshed.",
          },
          refresh: {
            type: ["object", "null"],
            description: "The automatic refresh (RISKCHECK_UPDATE_EVERY); null when it is off.",
            required: ["every_seconds", "running", "next_at", "last_success_at", "last_finished_at", "last_error"],
            properties: {
              every_seconds: { type: "number", exclusiveMinimum: 0 },
              running: { type: "boolean" },
              next_at: { type: ["string", "null"], format: "date-time" },
              last_success_at: { type: ["string", "null"], format: "date-time" },
              last_finished_at: { type: ["string", "null"], format: "date-time" },
              last_error: { type: ["string", "null"] },
            },
          },
          datasets: {
            type: "array",
            description: "Every file loaded: the compiled outputs and the operator's own files.",
            items: {
              type: "object",
              required: ["name", "file", "date", "age_days"],
              properties: {
                name: { type: "string" },
                file: { type: "string" },
                entries: { type: "integer", minimum: 0 },
                sources: {
                  type: "array",
                  items: { type: "string" },
                  description: "For a compiled output: the sources it was composed from.",
                },
                date: {
                  type: ["string", "null"],
                  format: "date-time",
                  description:
                    "The date of its data: a database's build date, the newest of its sources' data dates, a file's modification.",
                },
                age_days: { type: ["integer", "null"], minimum: 0 },
              },
            },
          },
          sources: {
            type: "array",
            items: {
              type: "object",
              required: [
                "name",
                "format",
                "feeds",
                "entries",
                "data_date",
                "data_date_from",
                "age_days",
                "fetched_at",
                "checked_at",
                "used_by",
              ],
              properties: {
                name: { type: "string" },
                format: { type: "string" },
                feeds: { type: "string" },
                entries: { type: "integer", minimum: 0 },
                data_date: {
                  type: ["string", "null"],
                  format: "date-time",
                  description: "The date of the data itself.",
                },
                data_date_from: {
                  enum: ["content", "package", "last-modified", null],
                  description:
                    "How it is known: the data says so, the npm package's release, or the server's Last-Modified.",
                },
                age_days: {
                  type: ["integer", "null"],
                  minimum: 0,
                  description: "From data_date; null when no date is known.",
                },
                fetched_at: { type: "string", format: "date-time" },
                checked_at: {
                  type: "string",
                  format: "date-time",
                  description: "When an update last confirmed it, a 304 included.",
                },
                used_by: {
                  type: "array",
                  items: { type: "string" },
                  description: "The outputs it feeds; empty when a newer copy supersedes it.",
                },
              },
            },
          },
        },
      },
      About: {
        type: "object",
        required: ["dataset_version", "sources"],
        properties: {
          dataset_version: { type: "string" },
          sources: {
            type: "array",
            description: "The sources in use.",
            items: {
              type: "object",
              required: ["name", "origin", "licence", "feeds", "entries", "data_date", "fetched_at"],
              properties: {
                name: { type: "string" },
                origin: {
                  type: "string",
                  description: "A URL, or the npm package and version the data was installed from.",
                },
                licence: { type: "string" },
                feeds: { type: "string" },
                entries: { type: "integer", minimum: 0 },
                data_date: {
                  type: ["string", "null"],
                  format: "date-time",
                  description: "The date of the data itself, when known.",
                },
                fetched_at: { type: "string", format: "date-time" },
              },
            },
          },
        },
      },
    },
  },
};

/** Served as is: built once. */
export const OPENAPI_JSON = JSON.stringify(OPENAPI_DOCUMENT);
