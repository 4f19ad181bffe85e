/** The label values of `endpoint`: a fixed set, so a request cannot mint a series. */
export const ENDPOINTS = [
  "/v1/check",
  "/v1/ip-reputation-check",
  "/v1/check/batch",
  "/v1/assess",
  "/v1/reports",
  "/v1/overrides",
  "/v1/policy",
  "/healthz",
  "/v1/about",
  "/openapi.json",
  "/metrics",
  "/dashboard",
  "other",
] as const;

export type Endpoint = (typeof ENDPOINTS)[number];

/** Upper bounds of the duration histogram, in seconds: the checks answer in tens of microseconds. */
export const DURATION_BUCKETS_SECONDS = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
] as const;

const BUCKETS_MS = Float64Array.from(DURATION_BUCKETS_SECONDS, (s) => s * 1000);
const BUCKETS = BUCKETS_MS.length + 1; // the last one is +Inf
/** Response statuses run from 100 to 599. */
const STATUSES = 600;

/**
 * Requests by endpoint and status, and handler durations by endpoint, in arrays
 * allocated once: counting a request is a few array writes, with no label strings,
 * maps or objects; the text is made only when /metrics is scraped.
 */
export class RequestMetrics {
  /** [endpoint * STATUSES + status] → requests. */
  private readonly counts = new Float64Array(ENDPOINTS.length * STATUSES);
  /** [endpoint * BUCKETS + bucket] → requests whose duration fell in that bucket (not cumulative). */
  private readonly buckets = new Float64Array(ENDPOINTS.length * BUCKETS);
  private readonly durationSumsMs = new Float64Array(ENDPOINTS.length);

  static endpointIndex(endpoint: Endpoint): number {
    return ENDPOINTS.indexOf(endpoint);
  }

  /** `endpoint` is an index into ENDPOINTS. */
  record(endpoint: number, status: number, durationMs: number): void {
    this.count(endpoint, status);
    let bucket = 0;
    while (bucket < BUCKETS_MS.length && durationMs > BUCKETS_MS[bucket]) bucket++;
    this.buckets[endpoint * BUCKETS + bucket]++;
    this.durationSumsMs[endpoint] += durationMs;
  }

  /** A request answered before any handler ran (an unknown path): counted, not timed. */
  count(endpoint: number, status: number): void {
    this.counts[endpoint * STATUSES + status]++;
  }

  /** Every endpoint and status seen so far, with its count. */
  *requests(): Generator<{ endpoint: Endpoint; status: number; count: number }> {
    for (let i = 0; i < this.counts.length; i++) {
      if (this.counts[i] > 0)
        yield { endpoint: ENDPOINTS[Math.floor(i / STATUSES)], status: i % STATUSES, count: this.counts[i] };
    }
  }

  /** Per endpoint that was timed: cumulative counts per upper bound (the last is +Inf), the sum of seconds and the count. */
  *durations(): Generator<{ endpoint: Endpoint; cumulative: number[]; sumSeconds: number; count: number }> {
    for (let e = 0; e < ENDPOINTS.length; e++) {
      const cumulative: number[] = [];
      let total = 0;
      for (let b = 0; b < BUCKETS; b++) cumulative.push((total += this.buckets[e * BUCKETS + b]));
      if (total > 0)
        yield { endpoint: ENDPOINTS[e], cumulative, sumSeconds: this.durationSumsMs[e] / 1000, count: total };
    }
  }
}
