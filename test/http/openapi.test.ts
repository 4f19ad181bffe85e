import { describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { loadSnapshot } from "../../src/datasets/load-snapshot.ts";
import type { Snapshot } from "../../src/datasets/snapshot.ts";
import { openApiJson } from "../../src/http/openapi-document.ts";
import {
  ASSESS_EXAMPLES,
  BATCH_EXAMPLES,
  OVERRIDE_EXAMPLES,
  POLICY_EXAMPLES,
  REPORT_EXAMPLES,
} from "../../src/http/openapi-examples.ts";
import { editPolicy, putRule } from "../../src/assess/policy-edits.ts";
import { openDatabase } from "../../src/stores/sqlite/database.ts";
import { inMemoryChangeSignal } from "../../src/stores/sqlite/change-signal.ts";
import type { Permission } from "../../src/keys/permissions.ts";
import { sqliteStores } from "../../src/stores/sqlite/stores.ts";
import type { Stores } from "../../src/stores/stores.ts";
import { lockedError } from "../../src/stores/sqlite/lock-wait.ts";
import { OverrideTable } from "../../src/ip/overrides/override-table.ts";
import { StorageUnavailable } from "../../src/faults/storage-fault.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import { BUNDLED_DATA_DIR } from "../support/bundled-data.ts";
import { type TestAppOptions, createTestApp } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

/** What a resolved OpenAPI document holds, as far as this test reads it. */
interface MediaType {
  schema: object;
  examples?: Record<string, { value: unknown }>;
}
interface DocumentedResponse {
  headers?: Record<string, { schema: object; required?: boolean }>;
  content?: Record<string, MediaType>;
}
interface Operation {
  responses: Record<string, DocumentedResponse>;
  requestBody?: { content: Record<string, MediaType> };
}
type Method = "get" | "post" | "put" | "patch" | "delete";
type ResolvedDocument = { paths: Record<string, Partial<Record<Method, Operation>>> };

const validator = new Validator();
// As a client gets it: JSON, with no object shared between places.
const validation = await validator.validate(JSON.parse(openApiJson()));
const resolved = validator.resolveRefs() as ResolvedDocument;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));

/** The real datasets `npm install` wrote, email lists included: the examples are answers on them. */
const { snapshot: bundled } = await loadSnapshot(BUNDLED_DATA_DIR, DEFAULT_THRESHOLDS);
// IP datasets with nothing but the allowlist file's lines (none), which the app compiles as it starts: the first lookup fails.
const broken = (part: "email" | "ip") =>
  ({
    ...bundled,
    [part]: part === "ip" ? { allowlistFile: [], overrides: OverrideTable.of([]) } : null,
  }) as unknown as Snapshot;

/** Every documented operation, with its path and method. */
function operations(): { path: string; method: Method; operation: Operation }[] {
  return Object.entries(resolved.paths).flatMap(([path, item]) =>
    (Object.entries(item) as [Method, Operation][]).map(([method, operation]) => ({ path, method, operation })),
  );
}

interface Scenario {
  readonly path: string;
  /** GET unless given. */
  readonly method?: Method;
  readonly status: number;
  /** The documented example this answer must equal. */
  readonly example?: string;
  answer(): Promise<Response>;
}

/** A request with a fresh key on an app with rate limit and quota on, so their headers show. */
function ask(
  path: string,
  options: TestAppOptions & {
    key?: "valid" | "none" | "unknown" | "revoked";
    times?: number;
    body?: unknown;
    method?: string;
    permissions?: readonly Permission[];
    allowedNetworks?: string[];
    failingReports?: boolean;
    locked?: boolean;
    commitAnswerLost?: boolean;
    unreachable?: boolean;
    prepare?: (stores: Stores) => Promise<void>;
  } = {},
) {
  return async (): Promise<Response> => {
    const t = await createTestApp({
      snapshot: bundled,
      ratePerMinute: 600,
      rateBurst: 100,
      ipQuotaPerMonth: 1000,
      ...options,
      ...(options.failingReports ? { stores: withFailingWrites(new Error("disk I/O error")) } : {}),
      ...(options.locked ? { stores: withFailingWrites(lockedError("/var/lib/riskcheck/riskcheck.sqlite")) } : {}),
      ...(options.commitAnswerLost ? { stores: withCommitAnswerLost() } : {}),
      ...(options.unreachable
        ? { stores: withFailingWrites(Object.assign(new Error("Connection refused"), { code: "ECONNREFUSED" })) }
        : {}),
    });
    const created = await t.newKey("test", {
      ...(options.permissions ? { permissions: options.permissions } : {}),
      allowedNetworks: options.allowedNetworks,
    });
    await options.prepare?.(t.stores);
    if (options.key === "revoked") await t.keys.revoke(created.key.id);
    const key = { valid: created.secret, revoked: created.secret, unknown: `rk_${"A".repeat(43)}`, none: undefined }[
      options.key ?? "valid"
    ];
    const init = {
      key,
      ...(options.method ? { method: options.method } : {}),
      ...(options.body === undefined
        ? {}
        : {
            method: options.method ?? "POST",
            body: typeof options.body === "string" ? options.body : JSON.stringify(options.body),
          }),
    };
    let res = await t.request(path, init);
    for (let i = 1; i < (options.times ?? 1); i++) res = await t.request(path, init);
    return res;
  };
}

/** Stores whose acts are committed, and then the database stops answering: as PostgreSQL killed at the COMMIT. */
function withCommitAnswerLost(): Stores {
  const stores = sqliteStores(openDatabase(":memory:"), inMemoryChangeSignal(), ":memory:");
  return {
    ...stores,
    transaction: async (work) => {
      await stores.transaction(work);
      throw new StorageUnavailable("the connection to the database was lost", "unreachable", "unknown");
    },
  };
}

/** Stores whose reports, acts and pages of override lines fail: as a broken disk would, or a lock held elsewhere. */
function withFailingWrites(failure: Error): Stores {
  const stores = sqliteStores(openDatabase(":memory:"), inMemoryChangeSignal(), ":memory:");
  const failing = <T extends object>(store: T, method: string): T =>
    Object.assign(Object.create(store), { [method]: () => Promise.reject(failure) });
  return {
    ...stores,
    reports: failing(stores.reports, "add"),
    ipOverrides: failing(stores.ipOverrides, "page"),
    transaction: () => Promise.reject(failure),
    serving: stores.serving,
  };
}

const CHECK = "/v1/check";
const REPORTS = "/v1/reports";
const REPORTER = { permissions: ["report"] as Permission[] };
const BATCH = "/v1/check/batch";
const MIXED = BATCH_EXAMPLES.request;
const IP = "/v1/ip-reputation-check";
/** A key limited to a network the client is outside of, as the Forbidden example has it. */
const ELSEWHERE = { allowedNetworks: ["10.0.0.0/8"], clientAddress: "192.0.2.1" };
const OVERRIDES = "/v1/overrides";
const MANAGER = { permissions: ["manage"] as Permission[] };
const LINE = OVERRIDE_EXAMPLES.line;
/** The example list's two lines, stored as the API would have stored them. */
const withExampleLines = async (stores: Stores) => {
  const [ip, email] = OVERRIDE_EXAMPLES.list.overrides;
  await stores.ipOverrides.put({
    target: ip.target,
    action: "allow",
    reason: ip.reason,
    author: ip.author,
    created: ip.created,
    until: ip.until,
  });
  await stores.emailOverrides.put({
    domain: email.target,
    action: "allow",
    reason: email.reason,
    author: email.author,
    created: email.created,
    until: email.until,
  });
};
const ONE_LINE = `${OVERRIDES}/${LINE.id}`;
const SCENARIOS: Scenario[] = [
  { path: CHECK, status: 200, example: "disposable", answer: ask(`${CHECK}?email=someone@mailinator.com`) },
  { path: CHECK, status: 200, example: "free", answer: ask(`${CHECK}?email=someone@gmail.com`) },
  {
    path: CHECK,
    status: 200,
    example: "internationalised",
    answer: ask(`${CHECK}?email=${encodeURIComponent("x@пример.com")}`),
  },
  // Explained answers carry this install's update times: checked against the schema only.
  { path: CHECK, status: 200, answer: ask(`${CHECK}?email=someone@mailinator.com&explain=1`) },
  {
    path: CHECK,
    status: 200,
    answer: ask(`${CHECK}?email=${encodeURIComponent('"Post.Master+x"@gmial.com')}&explain`),
  },
  { path: CHECK, status: 200, answer: ask(`${CHECK}?email=someone@duck.com&explain=yes`) },
  { path: CHECK, status: 400, example: "missing_parameter", answer: ask(CHECK) },
  { path: CHECK, status: 400, example: "invalid_email", answer: ask(`${CHECK}?email=not-an-address`) },
  { path: CHECK, status: 401, example: "missing_key", answer: ask(`${CHECK}?email=a@gmail.com`, { key: "none" }) },
  { path: CHECK, status: 401, example: "unknown_key", answer: ask(`${CHECK}?email=a@gmail.com`, { key: "unknown" }) },
  { path: CHECK, status: 401, example: "revoked_key", answer: ask(`${CHECK}?email=a@gmail.com`, { key: "revoked" }) },
  { path: CHECK, status: 403, example: "forbidden", answer: ask(`${CHECK}?email=a@gmail.com`, REPORTER) },
  { path: CHECK, status: 403, example: "outside_networks", answer: ask(`${CHECK}?email=a@gmail.com`, ELSEWHERE) },
  {
    path: CHECK,
    status: 429,
    example: "rate_limit_exceeded",
    answer: ask(`${CHECK}?email=a@gmail.com`, { rateBurst: 1, times: 2 }),
  },
  {
    path: CHECK,
    status: 500,
    example: "internal_error",
    answer: ask(`${CHECK}?email=a@gmail.com`, { snapshot: broken("email") }),
  },
  { path: IP, status: 200, example: "public", answer: ask(`${IP}?ip=81.2.69.142`) },
  { path: IP, status: 200, example: "anycast", answer: ask(`${IP}?ip=8.8.8.8`) },
  { path: IP, status: 200, example: "ipv6", answer: ask(`${IP}?ip=2a03:2880:f10c:83:face:b00c:0:25de`) },
  { path: IP, status: 200, example: "private", answer: ask(`${IP}?ip=10.1.2.3`) },
  { path: IP, status: 200, example: "explained", answer: ask(`${IP}?ip=8.8.8.8&explain=1`) },
  { path: IP, status: 200, answer: ask(IP, { clientAddress: "1.1.1.1" }) },
  { path: IP, status: 400, example: "invalid_ip", answer: ask(`${IP}?ip=1.2.3`) },
  { path: IP, status: 401, example: "missing_key", answer: ask(`${IP}?ip=8.8.8.8`, { key: "none" }) },
  { path: IP, status: 401, example: "unknown_key", answer: ask(`${IP}?ip=8.8.8.8`, { key: "unknown" }) },
  { path: IP, status: 401, example: "revoked_key", answer: ask(`${IP}?ip=8.8.8.8`, { key: "revoked" }) },
  { path: IP, status: 403, example: "forbidden", answer: ask(`${IP}?ip=8.8.8.8`, REPORTER) },
  { path: IP, status: 403, example: "outside_networks", answer: ask(`${IP}?ip=8.8.8.8`, ELSEWHERE) },
  {
    path: IP,
    status: 429,
    example: "rate_limit_exceeded",
    answer: ask(`${IP}?ip=8.8.8.8`, { rateBurst: 1, times: 2 }),
  },
  {
    path: IP,
    status: 429,
    example: "quota_exceeded",
    answer: ask(`${IP}?ip=8.8.8.8`, { ipQuotaPerMonth: 1, times: 2 }),
  },
  { path: IP, status: 500, example: "internal_error", answer: ask(`${IP}?ip=8.8.8.8`, { snapshot: broken("ip") }) },
  { path: BATCH, method: "post", status: 200, example: "mixed", answer: ask(BATCH, { body: MIXED }) },
  {
    path: BATCH,
    method: "post",
    status: 200,
    answer: ask(BATCH, { body: { assess: [ASSESS_EXAMPLES.request, { event: "signup" }, "a@gmail.com"] } }),
  },
  {
    path: BATCH,
    method: "post",
    status: 400,
    example: "invalid_body",
    answer: ask(BATCH, { body: { ip: ["8.8.8.8"] } }),
  },
  {
    path: BATCH,
    method: "post",
    status: 400,
    example: "too_many_items",
    answer: ask(BATCH, { body: { ips: Array(1001).fill("8.8.8.8") } }),
  },
  {
    path: BATCH,
    method: "post",
    status: 401,
    example: "missing_key",
    answer: ask(BATCH, { key: "none", body: MIXED }),
  },
  {
    path: BATCH,
    method: "post",
    status: 401,
    example: "unknown_key",
    answer: ask(BATCH, { key: "unknown", body: MIXED }),
  },
  {
    path: BATCH,
    method: "post",
    status: 401,
    example: "revoked_key",
    answer: ask(BATCH, { key: "revoked", body: MIXED }),
  },
  { path: BATCH, method: "post", status: 403, example: "forbidden", answer: ask(BATCH, { ...REPORTER, body: MIXED }) },
  {
    path: BATCH,
    method: "post",
    status: 403,
    example: "outside_networks",
    answer: ask(BATCH, { ...ELSEWHERE, body: MIXED }),
  },
  {
    path: BATCH,
    method: "post",
    status: 413,
    example: "body_too_large",
    answer: ask(BATCH, { body: { emails: ["x".repeat(1 << 20)] } }),
  },
  {
    path: BATCH,
    method: "post",
    status: 429,
    example: "rate_limit_exceeded",
    answer: ask(BATCH, { rateBurst: 1, times: 2, body: MIXED }),
  },
  {
    path: BATCH,
    method: "post",
    status: 429,
    example: "quota_exceeded",
    answer: ask(BATCH, { ipQuotaPerMonth: 1, body: { ips: ["8.8.8.8", "1.1.1.1"] } }),
  },
  {
    path: BATCH,
    method: "post",
    status: 500,
    example: "internal_error",
    answer: ask(BATCH, { snapshot: broken("ip"), body: MIXED }),
  },
  {
    path: REPORTS,
    method: "post",
    status: 200,
    example: "batch",
    answer: ask(REPORTS, { ...REPORTER, body: REPORT_EXAMPLES.request }),
  },
  {
    path: REPORTS,
    method: "post",
    status: 400,
    example: "invalid_body",
    answer: ask(REPORTS, { ...REPORTER, body: "not json" }),
  },
  {
    path: REPORTS,
    method: "post",
    status: 400,
    example: "too_many_items",
    answer: ask(REPORTS, { ...REPORTER, body: { reports: Array(1001).fill({ ip: "8.8.8.8", category: "bot" }) } }),
  },
  {
    path: REPORTS,
    method: "post",
    status: 400,
    example: "private_address",
    answer: ask(REPORTS, { ...REPORTER, body: { ip: "10.0.0.1", category: "bot" } }),
  },
  {
    path: REPORTS,
    method: "post",
    status: 401,
    example: "missing_key",
    answer: ask(REPORTS, { key: "none", body: REPORT_EXAMPLES.request }),
  },
  {
    path: REPORTS,
    method: "post",
    status: 401,
    example: "unknown_key",
    answer: ask(REPORTS, { key: "unknown", body: REPORT_EXAMPLES.request }),
  },
  {
    path: REPORTS,
    method: "post",
    status: 401,
    example: "revoked_key",
    answer: ask(REPORTS, { ...REPORTER, key: "revoked", body: REPORT_EXAMPLES.request }),
  },
  {
    path: REPORTS,
    method: "post",
    status: 403,
    example: "forbidden",
    answer: ask(REPORTS, { body: REPORT_EXAMPLES.request }),
  },
  {
    path: REPORTS,
    method: "post",
    status: 403,
    example: "outside_networks",
    answer: ask(REPORTS, { ...REPORTER, ...ELSEWHERE, body: REPORT_EXAMPLES.request }),
  },
  {
    path: REPORTS,
    method: "post",
    status: 413,
    example: "body_too_large",
    answer: ask(REPORTS, { ...REPORTER, body: { ip: "8.8.8.8", category: "bot", comment: "x".repeat(1 << 20) } }),
  },
  {
    path: REPORTS,
    method: "post",
    status: 429,
    example: "rate_limit_exceeded",
    answer: ask(REPORTS, { ...REPORTER, rateBurst: 1, times: 2, body: REPORT_EXAMPLES.request }),
  },
  {
    path: REPORTS,
    method: "post",
    status: 500,
    example: "internal_error",
    answer: ask(REPORTS, { ...REPORTER, failingReports: true, body: REPORT_EXAMPLES.request }),
  },
  {
    path: REPORTS,
    method: "post",
    status: 503,
    example: "locked",
    answer: ask(REPORTS, { ...REPORTER, locked: true, body: REPORT_EXAMPLES.request }),
  },
  { path: OVERRIDES, status: 200, example: "lines", answer: ask(OVERRIDES, { ...MANAGER, prepare: withExampleLines }) },
  { path: OVERRIDES, status: 400, example: "unknown_kind", answer: ask(`${OVERRIDES}?kind=asn`, MANAGER) },
  { path: OVERRIDES, status: 400, example: "invalid_parameter", answer: ask(`${OVERRIDES}?limit=5000`, MANAGER) },
  { path: OVERRIDES, status: 503, example: "unreachable", answer: ask(OVERRIDES, { ...MANAGER, unreachable: true }) },
  { path: OVERRIDES, status: 401, example: "missing_key", answer: ask(OVERRIDES, { key: "none" }) },
  { path: OVERRIDES, status: 401, example: "unknown_key", answer: ask(OVERRIDES, { key: "unknown" }) },
  { path: OVERRIDES, status: 401, example: "revoked_key", answer: ask(OVERRIDES, { ...MANAGER, key: "revoked" }) },
  { path: OVERRIDES, status: 403, example: "forbidden", answer: ask(OVERRIDES) },
  {
    path: OVERRIDES,
    status: 429,
    example: "rate_limit_exceeded",
    answer: ask(OVERRIDES, { ...MANAGER, rateBurst: 1, times: 2 }),
  },
  {
    path: OVERRIDES,
    method: "post",
    status: 201,
    example: "added",
    answer: ask(OVERRIDES, { ...MANAGER, body: OVERRIDE_EXAMPLES.request }),
  },
  {
    path: OVERRIDES,
    method: "post",
    status: 200,
    example: "unchanged",
    answer: ask(OVERRIDES, { ...MANAGER, prepare: withExampleLines, body: OVERRIDE_EXAMPLES.request }),
  },
  {
    path: OVERRIDES,
    method: "post",
    status: 409,
    example: "limit_reached",
    answer: ask(OVERRIDES, {
      ...MANAGER,
      overrideLimits: { lines: 2, linesPerKey: 2 },
      prepare: async (stores) => {
        await withExampleLines(stores);
        await stores.ipOverrides.put({
          target: "81.2.71.0/24",
          action: "deny",
          reason: "r",
          author: "ops",
          created: OVERRIDE_EXAMPLES.line.created,
          until: null,
        });
      },
      body: OVERRIDE_EXAMPLES.limitReached.request,
    }),
  },
  {
    path: OVERRIDES,
    method: "post",
    status: 503,
    example: "locked",
    answer: ask(OVERRIDES, { ...MANAGER, locked: true, body: OVERRIDE_EXAMPLES.request }),
  },
  {
    path: OVERRIDES,
    method: "post",
    status: 503,
    example: "unknown",
    answer: ask(OVERRIDES, { ...MANAGER, commitAnswerLost: true, body: OVERRIDE_EXAMPLES.request }),
  },
  {
    path: OVERRIDES,
    method: "post",
    status: 400,
    example: "invalid_body",
    answer: ask(OVERRIDES, { ...MANAGER, body: "not json" }),
  },
  {
    path: OVERRIDES,
    method: "post",
    status: 400,
    example: "unknown_kind",
    answer: ask(OVERRIDES, { ...MANAGER, body: { ...OVERRIDE_EXAMPLES.request, kind: "asn" } }),
  },
  ...Object.entries(OVERRIDE_EXAMPLES.refusals).map(
    ([example, { request }]): Scenario => ({
      path: OVERRIDES,
      method: "post",
      status: 400,
      example,
      answer: ask(OVERRIDES, { ...MANAGER, body: request }),
    }),
  ),
  {
    path: OVERRIDES,
    method: "post",
    status: 401,
    example: "missing_key",
    answer: ask(OVERRIDES, { key: "none", body: OVERRIDE_EXAMPLES.request }),
  },
  {
    path: OVERRIDES,
    method: "post",
    status: 401,
    example: "unknown_key",
    answer: ask(OVERRIDES, { key: "unknown", body: OVERRIDE_EXAMPLES.request }),
  },
  {
    path: OVERRIDES,
    method: "post",
    status: 401,
    example: "revoked_key",
    answer: ask(OVERRIDES, { ...MANAGER, key: "revoked", body: OVERRIDE_EXAMPLES.request }),
  },
  {
    path: OVERRIDES,
    method: "post",
    status: 403,
    example: "forbidden",
    answer: ask(OVERRIDES, { body: OVERRIDE_EXAMPLES.request }),
  },
  {
    path: OVERRIDES,
    method: "post",
    status: 429,
    example: "rate_limit_exceeded",
    answer: ask(OVERRIDES, { ...MANAGER, rateBurst: 1, times: 2, body: OVERRIDE_EXAMPLES.request }),
  },
  {
    path: `${OVERRIDES}/{id}`,
    method: "delete",
    status: 204,
    answer: ask(ONE_LINE, { ...MANAGER, method: "DELETE", prepare: withExampleLines }),
  },
  {
    path: `${OVERRIDES}/{id}`,
    method: "delete",
    status: 401,
    example: "missing_key",
    answer: ask(ONE_LINE, { key: "none", method: "DELETE" }),
  },
  {
    path: `${OVERRIDES}/{id}`,
    method: "delete",
    status: 401,
    example: "unknown_key",
    answer: ask(ONE_LINE, { key: "unknown", method: "DELETE" }),
  },
  {
    path: `${OVERRIDES}/{id}`,
    method: "delete",
    status: 401,
    example: "revoked_key",
    answer: ask(ONE_LINE, { ...MANAGER, key: "revoked", method: "DELETE" }),
  },
  {
    path: `${OVERRIDES}/{id}`,
    method: "delete",
    status: 403,
    example: "forbidden",
    answer: ask(ONE_LINE, { method: "DELETE" }),
  },
  {
    path: `${OVERRIDES}/{id}`,
    method: "delete",
    status: 404,
    example: "override_not_found",
    answer: ask(`${OVERRIDES}/ip:192.0.2.1`, { ...MANAGER, method: "DELETE" }),
  },
  {
    path: `${OVERRIDES}/{id}`,
    method: "delete",
    status: 503,
    example: "locked",
    answer: ask(ONE_LINE, { ...MANAGER, locked: true, method: "DELETE" }),
  },
  {
    path: `${OVERRIDES}/{id}`,
    method: "delete",
    status: 429,
    example: "rate_limit_exceeded",
    answer: ask(ONE_LINE, { ...MANAGER, rateBurst: 1, times: 2, method: "DELETE" }),
  },
  ...assessScenarios(),
  ...policyScenarios(),
  { path: "/healthz", status: 200, answer: ask("/healthz", { key: "none" }) },
  { path: "/v1/about", status: 200, answer: ask("/v1/about", { key: "none" }) },
  { path: "/openapi.json", status: 200, answer: ask("/openapi.json", { key: "none" }) },
  { path: "/metrics", status: 200, answer: ask("/metrics", { key: "none" }) },
  {
    path: "/metrics",
    status: 401,
    example: "unauthorized",
    answer: ask("/metrics", { key: "none", metricsToken: "a-metrics-token" }),
  },
];

/** The answers every keyed operation gives before its own: the three 401s, the 403s and the rate limit's 429. */
function admissionScenarios(
  path: string,
  method: Method,
  url: string,
  options: Parameters<typeof ask>[1],
  permission: { permissions?: Permission[] },
  outsideNetworks: boolean,
): Scenario[] {
  const asked = (extra: Parameters<typeof ask>[1]) => ask(url, { ...options, ...extra });
  return [
    { path, method, status: 401, example: "missing_key", answer: asked({ key: "none" }) },
    { path, method, status: 401, example: "unknown_key", answer: asked({ key: "unknown" }) },
    { path, method, status: 401, example: "revoked_key", answer: asked({ ...permission, key: "revoked" }) },
    { path, method, status: 403, example: "forbidden", answer: asked(permission.permissions ? {} : REPORTER) },
    ...(outsideNetworks
      ? [{ path, method, status: 403, example: "outside_networks", answer: asked({ ...permission, ...ELSEWHERE }) }]
      : []),
    {
      path,
      method,
      status: 429,
      example: "rate_limit_exceeded",
      answer: asked({ ...permission, rateBurst: 1, times: 2 }),
    },
  ];
}

function assessScenarios(): Scenario[] {
  const ASSESS = "/v1/assess";
  const SIGNUP = `${ASSESS}?email=someone@mailinator.com&ip=8.8.8.8&event=signup`;
  const body = ASSESS_EXAMPLES.request;
  return [
    { path: ASSESS, status: 200, example: "signup", answer: ask(SIGNUP) },
    { path: ASSESS, status: 200, answer: ask(`${ASSESS}?email=someone@gmail.com`) },
    { path: ASSESS, status: 200, answer: ask(`${SIGNUP}&explain=1`) },
    { path: ASSESS, status: 200, answer: ask(`${ASSESS}?caller_ip&event=login`, { clientAddress: "81.2.69.142" }) },
    { path: ASSESS, status: 400, example: "missing_parameter", answer: ask(ASSESS) },
    { path: ASSESS, status: 400, answer: ask(`${ASSESS}?email=a@gmail.com&event=sign%20up`) },
    ...admissionScenarios(ASSESS, "get", SIGNUP, {}, {}, true),
    { path: ASSESS, status: 429, example: "quota_exceeded", answer: ask(SIGNUP, { ipQuotaPerMonth: 1, times: 2 }) },
    { path: ASSESS, status: 500, example: "internal_error", answer: ask(SIGNUP, { snapshot: broken("ip") }) },
    { path: ASSESS, method: "post", status: 200, example: "signup", answer: ask(ASSESS, { body }) },
    { path: ASSESS, method: "post", status: 200, answer: ask(`${ASSESS}?explain`, { body: { ip: "10.1.2.3" } }) },
    {
      path: ASSESS,
      method: "post",
      status: 400,
      example: "missing_parameter",
      answer: ask(ASSESS, { body: { event: "signup" } }),
    },
    { path: ASSESS, method: "post", status: 400, answer: ask(ASSESS, { body: { emails: ["a@gmail.com"] } }) },
    ...admissionScenarios(ASSESS, "post", ASSESS, { body }, {}, true),
    {
      path: ASSESS,
      method: "post",
      status: 413,
      example: "body_too_large",
      answer: ask(ASSESS, { body: { email: "x".repeat(20_000) } }),
    },
    {
      path: ASSESS,
      method: "post",
      status: 429,
      example: "quota_exceeded",
      answer: ask(ASSESS, { body, ipQuotaPerMonth: 1, times: 2 }),
    },
    {
      path: ASSESS,
      method: "post",
      status: 500,
      example: "internal_error",
      answer: ask(ASSESS, { body, snapshot: broken("ip") }),
    },
  ];
}

function policyScenarios(): Scenario[] {
  const POLICY = "/v1/policy";
  const RULES = "/v1/policy/rules";
  const ONE = `${RULES}/{id}`;
  const rule = POLICY_EXAMPLES.rule;
  const ruleUrl = `${RULES}/${rule.id}`;
  const withRule = async (stores: Stores) => {
    await editPolicy(stores.policy, putRule(rule, { author: "test", nowMs: Date.UTC(2026, 10, 23, 12) }));
  };
  const set = { rules: [rule] };
  return [
    { path: POLICY, status: 200, example: "none", answer: ask(POLICY, MANAGER) },
    ...admissionScenarios(POLICY, "get", POLICY, {}, MANAGER, false),
    { path: POLICY, method: "put", status: 200, answer: ask(POLICY, { ...MANAGER, method: "PUT", body: set }) },
    {
      path: POLICY,
      method: "put",
      status: 400,
      example: "invalid_policy",
      answer: ask(POLICY, { ...MANAGER, method: "PUT", body: POLICY_EXAMPLES.refused.request }),
    },
    { path: POLICY, method: "put", status: 400, answer: ask(POLICY, { ...MANAGER, method: "PUT", body: "[]" }) },
    {
      path: POLICY,
      method: "put",
      status: 413,
      answer: ask(POLICY, { ...MANAGER, method: "PUT", body: { rules: [], pad: "x".repeat(2_200_000) } }),
    },
    ...admissionScenarios(POLICY, "put", POLICY, { method: "PUT", body: set }, MANAGER, false),
    { path: RULES, method: "post", status: 201, example: "added", answer: ask(RULES, { ...MANAGER, body: rule }) },
    {
      path: RULES,
      method: "post",
      status: 400,
      example: "invalid_policy",
      answer: ask(RULES, { ...MANAGER, body: POLICY_EXAMPLES.refusedRule.request }),
    },
    ...admissionScenarios(RULES, "post", RULES, { body: rule }, MANAGER, false),
    {
      path: ONE,
      method: "patch",
      status: 200,
      answer: ask(ruleUrl, { ...MANAGER, method: "PATCH", body: { mode: "enforce" }, prepare: withRule }),
    },
    {
      path: ONE,
      method: "patch",
      status: 400,
      answer: ask(ruleUrl, { ...MANAGER, method: "PATCH", body: { decision: "allow" }, prepare: withRule }),
    },
    {
      path: ONE,
      method: "patch",
      status: 404,
      example: "rule_not_found",
      answer: ask(ruleUrl, { ...MANAGER, method: "PATCH", body: { mode: "enforce" } }),
    },
    ...admissionScenarios(ONE, "patch", ruleUrl, { method: "PATCH", body: { mode: "enforce" } }, MANAGER, false),
    {
      path: ONE,
      method: "delete",
      status: 204,
      answer: ask(ruleUrl, { ...MANAGER, method: "DELETE", prepare: withRule }),
    },
    {
      path: ONE,
      method: "delete",
      status: 404,
      example: "rule_not_found",
      answer: ask(ruleUrl, { ...MANAGER, method: "DELETE" }),
    },
    ...admissionScenarios(ONE, "delete", ruleUrl, { method: "DELETE" }, MANAGER, false),
  ];
}

describe("the OpenAPI document", () => {
  test("is valid OpenAPI 3.1 by a maintained validator", () => {
    expect(validation.errors ?? []).toEqual([]);
    expect(validation.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  test("is served at GET /openapi.json without a key", async () => {
    const res = await ask("/openapi.json", { key: "none" })();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual(JSON.parse(openApiJson()));
  });

  test("documents every route the app serves outside the dashboard, and nothing else", async () => {
    const { app } = await createTestApp({ snapshot: bundled });
    // HEAD is registered only to be refused (404), as every method no route takes.
    const served = app.routes
      .filter(({ path, method }) => !path.startsWith("/dashboard") && method !== "HEAD")
      .map(({ method, path }) => `${method} ${path.replace(/:(\w+)/g, "{$1}")}`);
    expect(served.sort()).toEqual(
      operations()
        .map(({ path, method }) => `${method.toUpperCase()} ${path}`)
        .sort(),
    );
  });

  test("every documented status has a real answer below, and every example a question", () => {
    const documented = operations().flatMap(({ path, method, operation }) =>
      Object.keys(operation.responses).map((status) => `${method} ${path} ${status}`),
    );
    const asked = (s: Scenario) => `${s.method ?? "get"} ${s.path} ${s.status}`;
    expect([...new Set(SCENARIOS.map(asked))].sort()).toEqual(documented.sort());
    const examples = operations().flatMap(({ path, method, operation }) =>
      Object.entries(operation.responses).flatMap(([status, response]) =>
        Object.values(response.content ?? {}).flatMap((media) =>
          Object.keys(media.examples ?? {}).map((name) => `${method} ${path} ${status} ${name}`),
        ),
      ),
    );
    expect(
      SCENARIOS.filter((s) => s.example)
        .map((s) => `${asked(s)} ${s.example}`)
        .sort(),
    ).toEqual(examples.sort());
  });

  test(
    "every schema, parameters' and headers' included, is JSON Schema 2020-12 with no unknown keyword",
    () => {
      // The OpenAPI 3.1 meta-schema the validator uses stops at Schema Objects (any object passes),
      // so a typo such as {"type": "strnig"} or "minLenght" is caught here.
      const strict = addFormats(
        new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, strictTuples: false }),
      );
      strict.addVocabulary(["example", "discriminator", "xml", "externalDocs"]);
      const schemas: [string, object][] = [];
      const walk = (node: unknown, at: string): void => {
        if (node === null || typeof node !== "object") return;
        for (const [key, value] of Object.entries(node)) {
          if (key === "schema" && typeof value === "object") schemas.push([`${at}/schema`, value as object]);
          else if (key !== "examples" && key !== "example") walk(value, `${at}/${key}`);
        }
      };
      const document = JSON.parse(openApiJson());
      walk(resolved.paths, "#/paths");
      for (const [name, schema] of Object.entries(document.components.schemas as Record<string, object>))
        schemas.push([`#/components/schemas/${name}`, schema]);
      expect(schemas.length).toBeGreaterThan(30);
      // The components' schemas as one schema's $defs, so that a $ref between them resolves.
      const rebased = (schema: object) =>
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"openapi.json#/$defs/'));
      strict.addSchema(rebased({ $id: "openapi.json", $defs: document.components.schemas }));
      const problems = schemas.flatMap(([at, schema]) => {
        try {
          strict.compile(rebased(schema));
          return [];
        } catch (err) {
          return [`${at}: ${(err as Error).message}`];
        }
      });
      expect(problems).toEqual([]);
      // Compiling every schema strictly takes seconds (the assessment's nests both answers): its own deadline.
    },
    scaled(30_000),
  );

  test("every example matches its schema", () => {
    for (const { operation } of operations()) {
      for (const response of [
        ...Object.values(operation.responses),
        ...(operation.requestBody ? [operation.requestBody] : []),
      ]) {
        for (const media of Object.values(response.content ?? {})) {
          const validate = ajv.compile(media.schema);
          for (const [name, example] of Object.entries(media.examples ?? {})) {
            expect({ name, valid: validate(example.value), errors: validate.errors ?? null }).toEqual({
              name,
              valid: true,
              errors: null,
            });
          }
        }
      }
    }
  });

  test("reputation.reasons with feeds, a cap and warnings validates; the first form of it does not", () => {
    const reasons = JSON.parse(openApiJson()).components.schemas.ReputationReasons;
    const withFeeds = {
      rule: { id: "benign-cap", level: "suspicious", reports: 9, capped: { from: "bad", by: "verified-crawler" } },
      contributions: [
        {
          source: "ipsum",
          category: "attack",
          count: 9,
          weight: 1,
          counted: 8,
          first_seen: "2026-11-01T00:00:00.000Z",
          last_seen: "2026-11-23T00:00:00.000Z",
        },
      ],
      kinds: [{ kind: "crawler", from: "googlebot" }],
      location_source: "aws:eu-central-1",
      location_precision: "region",
      database_location: { country_code: "US", region: "VA", city: "Ashburn" },
    };
    expect(ajv.validate(reasons, withFeeds)).toBe(true);
    expect(ajv.validate(reasons, { rule: "sum>=warning", sources: ["ipsum"], network_kinds_from: [] })).toBe(false);
  });
});

describe("real answers match the document", () => {
  test.each(SCENARIOS.map((s) => [`${s.path} ${s.status}${s.example ? ` (${s.example})` : ""}`, s] as const))(
    "%s",
    async (_, scenario) => {
      const res = await scenario.answer();
      expect(res.status).toBe(scenario.status);
      const documented = resolved.paths[scenario.path][scenario.method ?? "get"]!.responses[String(scenario.status)];

      const text = await res.text();
      const content = Object.entries(documented.content ?? {});
      if (content.length === 0) {
        // 204: no body, and no content type.
        expect({ text, type: res.headers.get("content-type") }).toEqual({ text: "", type: null });
      } else {
        const [mediaType, media] = content[0];
        expect(res.headers.get("content-type")).toBe(mediaType);
        const body = mediaType === "application/json" ? JSON.parse(text) : text;
        const validate = ajv.compile(media.schema);
        expect({ valid: validate(body), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
        if (scenario.example) expect(body).toEqual(media.examples![scenario.example].value);
      }

      const headers = documented.headers ?? {};
      const names = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
      const undocumented = [...res.headers.keys()].filter(
        (h) => (h.startsWith("x-") || h === "www-authenticate") && !names.has(h),
      );
      expect(undocumented).toEqual([]);
      for (const [name, header] of Object.entries(headers)) {
        const value = res.headers.get(name);
        if (value === null && header.required === false) continue;
        expect({ name, value: value !== null }).toEqual({ name, value: true });
        expect({ name, valid: ajv.validate(header.schema, value) }).toEqual({ name, valid: true });
      }
    },
  );
});
