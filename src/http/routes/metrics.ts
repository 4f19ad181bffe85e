import pkg from "../../../package.json" with { type: "json" };
import type { PolicyCounts } from "../../assess/policy-counts.ts";
import type { SnapshotHolder } from "../../datasets/snapshot.ts";
import { type KeyRecord, type KeyStatus, keyStatus } from "../../keys/key-record.ts";
import { datasetDates } from "../../metrics/dataset-dates.ts";
import { PROMETHEUS_CONTENT_TYPE, PrometheusText } from "../../metrics/prometheus-text.ts";
import type { BatchItemMetrics } from "../../metrics/batch-items.ts";
import type { ReportOutcomes } from "../../metrics/report-outcomes.ts";
import { DURATION_BUCKETS_SECONDS, type RequestMetrics } from "../../metrics/request-metrics.ts";
import { bearerToken } from "../auth.ts";
import type { MailEvidence } from "../../email/mail-evidence.ts";
import { API_ERRORS, errorResponse } from "../errors.ts";
import { JSON_TYPE } from "../json-response.ts";
import { type PathOperations, errorExample, errorSchema, jsonContent } from "../openapi-parts.ts";
import type { StorageHealth } from "../../faults/storage-health.ts";
import { RETRY_AFTER_SECONDS, type StorageFaultReason, storageFaultOf } from "../../faults/storage-fault.ts";

export interface MetricsDeps {
  readonly requests: RequestMetrics;
  /** The email check's DNS evidence, when on. */
  readonly mail: MailEvidence | null;
  readonly batchItems: BatchItemMetrics;
  readonly reports: ReportOutcomes;
  /** The assessments' decisions, and what each rule decided or would have, since start. */
  readonly policyCounts: PolicyCounts;
  readonly snapshots: SnapshotHolder;
  readonly keys: { list(): Promise<KeyRecord[]> };
  /** When an update last reached the sources, as an ISO time; null for never. */
  readonly lastUpdateSuccess: () => string | null;
  /** When set, scrapes must send it as a Bearer token. */
  readonly token: string | null;
  readonly startedMs: number;
  readonly now: () => number;
  readonly storage: StorageHealth;
}

const BUCKET_BOUNDS = [...DURATION_BUCKETS_SECONDS.map(String), "+Inf"];

/** `GET /metrics`: Prometheus' text format, made only when scraped. */
export async function metrics(deps: MetricsDeps, request: Request): Promise<Response> {
  if (deps.token !== null && !sameSecret(bearerToken(request.headers.get("authorization")), deps.token)) {
    return errorResponse(API_ERRORS.metricsTokenRequired, {
      "content-type": JSON_TYPE,
      "www-authenticate": 'Bearer realm="metrics"',
    });
  }
  const nowMs = deps.now();
  const text = new PrometheusText();

  text.family("riskcheck_requests_total", "counter", "Requests answered, by endpoint and HTTP status.");
  for (const { endpoint, status, count } of deps.requests.requests())
    text.sample("riskcheck_requests_total", { endpoint, status: String(status) }, count);

  text.family(
    "riskcheck_request_duration_seconds",
    "histogram",
    "Time spent answering a request inside the server, by endpoint.",
  );
  for (const { endpoint, cumulative, sumSeconds, count } of deps.requests.durations()) {
    cumulative.forEach((n, i) => {
      text.sample("riskcheck_request_duration_seconds_bucket", { endpoint, le: BUCKET_BOUNDS[i] }, n);
    });
    text.sample("riskcheck_request_duration_seconds_sum", { endpoint }, sumSeconds);
    text.sample("riskcheck_request_duration_seconds_count", { endpoint }, count);
  }

  text.family(
    "riskcheck_batch_items_total",
    "counter",
    "Items of POST /v1/check/batch, by kind (email, ip) and result (answered, invalid).",
  );
  for (const { kind, result, count } of deps.batchItems.samples())
    text.sample("riskcheck_batch_items_total", { kind, result }, count);

  text.family(
    "riskcheck_reports_total",
    "counter",
    "Reports posted to POST /v1/reports, by outcome (accepted, duplicate, rejected).",
  );
  for (const { outcome, count } of deps.reports.samples()) text.sample("riskcheck_reports_total", { outcome }, count);

  if (deps.mail !== null) mailSamples(text, deps.mail);

  text.family(
    "riskcheck_assessments_total",
    "counter",
    "Assessments (/v1/assess), by event (signup, login, payment, one a rule names, other, none) and decision.",
  );
  for (const [key, count] of deps.policyCounts.sinceStart.decisions) {
    const [event, decision] = key.split(" ");
    text.sample("riskcheck_assessments_total", { event, decision }, count);
  }
  text.family(
    "riskcheck_policy_rule_total",
    "counter",
    "Per rule: assessments it decided, would have decided in shadow, and of those it would have changed.",
  );
  for (const [key, count] of deps.policyCounts.sinceStart.rules) {
    const [rule, outcome] = key.split(" ");
    text.sample("riskcheck_policy_rule_total", { rule, outcome }, count);
  }

  text.family(
    "riskcheck_dataset_age_seconds",
    "gauge",
    "Age of each source's data being served (and of the operator's files), from the data's own date.",
  );
  for (const [dataset, date] of datasetDates(deps.snapshots.current())) {
    const at = Date.parse(date);
    if (!Number.isNaN(at))
      text.sample("riskcheck_dataset_age_seconds", { dataset }, Math.max(0, Math.round((nowMs - at) / 1000)));
  }

  text.family(
    "riskcheck_update_last_success_timestamp_seconds",
    "gauge",
    "When an update last reached the sources successfully (Unix time).",
  );
  const updated = Date.parse(deps.lastUpdateSuccess() ?? "");
  if (!Number.isNaN(updated)) text.sample("riskcheck_update_last_success_timestamp_seconds", {}, updated / 1000);

  text.family(
    "riskcheck_storage_faults_total",
    "counter",
    "Times the database failed under a request or a background job, by reason (locked, unreachable, full, failing).",
  );
  const faults = deps.storage.counts();
  for (const reason of Object.keys(RETRY_AFTER_SECONDS) as StorageFaultReason[])
    text.sample("riskcheck_storage_faults_total", { reason }, faults.get(reason) ?? 0);
  const storage = deps.storage.state();
  text.family("riskcheck_storage_degraded", "gauge", "1 while the database fails (as /healthz says degraded), else 0.");
  text.sample("riskcheck_storage_degraded", {}, storage.status === "degraded" ? 1 : 0);

  // Read from the database: while it fails, the scrape goes without these rather than without every metric.
  const keys = await deps.keys.list().catch((err: unknown) => {
    const fault = storageFaultOf(err);
    if (fault === null) throw err;
    deps.storage.noted(fault);
    return null;
  });
  if (keys !== null) {
    const byStatus: Record<KeyStatus, number> = { active: 0, expired: 0, revoked: 0 };
    for (const key of keys) byStatus[keyStatus(key, nowMs)]++;
    text.family("riskcheck_keys", "gauge", "API keys, by status.");
    for (const [status, count] of Object.entries(byStatus)) text.sample("riskcheck_keys", { status }, count);
  }

  text.family("riskcheck_build_info", "gauge", "The running version, as a label; always 1.");
  text.sample("riskcheck_build_info", { version: pkg.version }, 1);
  text.family("process_start_time_seconds", "gauge", "When the server started (Unix time).");
  text.sample("process_start_time_seconds", {}, deps.startedMs / 1000);
  text.family("process_resident_memory_bytes", "gauge", "Resident memory of the server process.");
  text.sample("process_resident_memory_bytes", {}, process.memoryUsage.rss());

  return new Response(text.toString(), { headers: { "content-type": PROMETHEUS_CONTENT_TYPE } });
}

/** The email check's DNS evidence: how the checks no list decided were answered, and the lookups behind them. */
function mailSamples(text: PrometheusText, mail: MailEvidence): void {
  const c = mail.counts;
  const series: [string, "counter" | "gauge", string, number][] = [
    ["riskcheck_email_dns_lookups_total", "counter", "DNS lookups of a domain's mail servers started.", c.lookups],
    [
      "riskcheck_email_dns_lookup_failures_total",
      "counter",
      "Lookups that failed (SERVFAIL, no answer from the resolver, refused).",
      c.failed,
    ],
    ["riskcheck_email_dns_cache_hits_total", "counter", "Checks answered from the cache of mail routes.", c.cacheHits],
    [
      "riskcheck_email_dns_timeouts_total",
      "counter",
      "Checks whose lookup did not answer within the budget: answered from the lists, the lookup going on to fill the cache.",
      c.timeouts,
    ],
    [
      "riskcheck_email_dns_skipped_total",
      "counter",
      "Checks answered from the lists because as many lookups as allowed were under way for the whole budget.",
      c.skipped,
    ],
    [
      "riskcheck_email_dns_decided_total",
      "counter",
      "Answers made disposable by mail servers that known disposable domains share.",
      c.decided,
    ],
    ["riskcheck_email_dns_in_flight", "gauge", "Lookups under way.", mail.inFlight],
    ["riskcheck_email_dns_cache_entries", "gauge", "Mail routes in the cache.", mail.cached],
  ];
  for (const [name, type, help, value] of series) text.family(name, type, help).sample(name, {}, value);
}

/** Compares digests, so the time taken says nothing about how much of the token was right. */
function sameSecret(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const digest = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest();
  // Constant-time: Bun's global crypto.timingSafeEqual, as node:crypto's.
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

/** `GET /metrics` as the OpenAPI document describes it. */
export const METRICS_OPERATIONS = {
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
            "Prometheus text format 0.0.4: `riskcheck_requests_total{endpoint,status}`, " +
            "`riskcheck_request_duration_seconds{endpoint}` (histogram), " +
            "`riskcheck_dataset_age_seconds{dataset}`, `riskcheck_update_last_success_timestamp_seconds`, " +
            "`riskcheck_keys{status}`, `riskcheck_build_info{version}`, `process_start_time_seconds`, " +
            "`process_resident_memory_bytes`.",
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
} satisfies PathOperations;
