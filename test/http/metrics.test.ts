import { describe, expect, test } from "bun:test";
import type { SourceRecord } from "../../src/datasets/manifest.ts";
import type { Snapshot } from "../../src/datasets/snapshot.ts";
import { datasetDates } from "../../src/metrics/dataset-dates.ts";
import { lastUpdateSuccess } from "../../src/metrics/last-update-success.ts";
import { DURATION_BUCKETS_SECONDS } from "../../src/metrics/request-metrics.ts";
import { type Family, parsePrometheusText } from "../support/prometheus-text.ts";
import { createTestApp, testSnapshot } from "../support/test-app.ts";

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

async function scrape(t: TestApp, headers: Record<string, string> = {}): Promise<Map<string, Family>> {
  const res = await t.request("/metrics", { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parsePrometheusText(await res.text());
}

function value(
  families: Map<string, Family>,
  family: string,
  labels: Record<string, string>,
  sample = family,
): number | undefined {
  return families
    .get(family)
    ?.samples.find((s) => s.name === sample && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

describe("GET /metrics", () => {
  test("parses as Prometheus text with every metric family the contract names", async () => {
    const t = await createTestApp({
      snapshot: { ...(await testSnapshot()), sources: { ipsum: source({ checkedAt: "2026-11-20T06:00:00.000Z" }) } },
    });
    const families = await scrape(t);
    expect(Object.fromEntries([...families].map(([name, f]) => [name, f.type]))).toMatchObject({
      riskcheck_requests_total: "counter",
      riskcheck_request_duration_seconds: "histogram",
      riskcheck_dataset_age_seconds: "gauge",
      riskcheck_update_last_success_timestamp_seconds: "gauge",
      riskcheck_keys: "gauge",
    });
    for (const family of families.values()) expect(family.help).not.toBe("");
  });

  test("counts requests by endpoint and status, and times them per endpoint", async () => {
    const t = await createTestApp({ ratePerMinute: 60, rateBurst: 3 });
    const { secret } = await t.newKey();
    const statuses: number[] = [];
    for (const query of ["?email=a@gmail.com", "?email=a@gmail.com", "?email=not-an-address", "?email=a@gmail.com"]) {
      statuses.push((await t.request(`/v1/check${query}`, { key: secret })).status);
    }
    statuses.push((await t.request("/v1/check?email=a@gmail.com")).status);
    await t.request("/v1/ip-reputation-check?ip=8.8.8.8", { key: "rk_unknown" });
    await t.request("/healthz");
    await t.request("/no/such/path");
    expect(statuses).toEqual([200, 200, 400, 429, 401]);

    const families = await scrape(t);
    const requests = (endpoint: string, status: number) =>
      value(families, "riskcheck_requests_total", { endpoint, status: String(status) });
    expect(requests("/v1/check", 200)).toBe(2);
    expect(requests("/v1/check", 400)).toBe(1);
    expect(requests("/v1/check", 429)).toBe(1);
    expect(requests("/v1/check", 401)).toBe(1);
    expect(requests("/v1/ip-reputation-check", 401)).toBe(1);
    expect(requests("/healthz", 200)).toBe(1);
    expect(requests("other", 404)).toBe(1);

    const histogram = families.get("riskcheck_request_duration_seconds")!;
    const buckets = histogram.samples.filter((s) => s.name.endsWith("_bucket") && s.labels.endpoint === "/v1/check");
    expect(buckets.map((b) => b.labels.le)).toEqual([...DURATION_BUCKETS_SECONDS.map(String), "+Inf"]);
    expect(
      value(
        families,
        "riskcheck_request_duration_seconds",
        { endpoint: "/v1/check" },
        "riskcheck_request_duration_seconds_count",
      ),
    ).toBe(5);
    const sum = value(
      families,
      "riskcheck_request_duration_seconds",
      { endpoint: "/v1/check" },
      "riskcheck_request_duration_seconds_sum",
    )!;
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(5);
  });

  test("a route that throws is counted as its 500", async () => {
    const snapshot = { ...(await testSnapshot()), email: null } as unknown as Snapshot;
    const t = await createTestApp({ snapshot });
    const res = await t.request("/v1/check?email=a@gmail.com", { key: (await t.newKey()).secret });
    expect(res.status).toBe(500);
    expect(value(await scrape(t), "riskcheck_requests_total", { endpoint: "/v1/check", status: "500" })).toBe(1);
  });

  test("dataset ages come from the data's own dates; the last update from the sources' last check", async () => {
    const snapshot: Snapshot = {
      ...(await testSnapshot()),
      datasets: [{ name: "curated/vpn-asns.txt", file: "curated/vpn-asns.txt", date: "2026-11-13T12:00:00.000Z" }],
      outputs: { "reputation-index": { count: 1, sources: ["spamhaus-drop-v4"] } },
      sources: {
        "spamhaus-drop-v4": source({ dataDate: "2026-11-22T12:00:00.000Z", checkedAt: "2026-11-23T11:00:00.000Z" }),
      },
    };
    const t = await createTestApp({ snapshot }); // the clock reads 2026-11-23T12:00Z
    const families = await scrape(t);
    expect(value(families, "riskcheck_dataset_age_seconds", { dataset: "curated/vpn-asns.txt" })).toBe(10 * 86400);
    expect(value(families, "riskcheck_dataset_age_seconds", { dataset: "spamhaus-drop-v4" })).toBe(86400);
    expect(value(families, "riskcheck_update_last_success_timestamp_seconds", {})).toBe(
      Date.UTC(2026, 10, 23, 11) / 1000,
    );
  });

  test("keys by status, and no key's name, id or secret anywhere", async () => {
    const t = await createTestApp();
    const kept = await t.newKey("checkout-backend-xyz");
    const dropped = await t.newKey("nightly-batch-xyz");
    await t.keys.revoke(dropped.key.id);
    await t.request("/v1/check?email=a@gmail.com", { key: kept.secret });
    await t.request("/v1/check?email=a@gmail.com", { key: dropped.secret });
    const text = await (await t.request("/metrics")).text();
    const families = parsePrometheusText(text);
    expect(value(families, "riskcheck_keys", { status: "active" })).toBe(1);
    expect(value(families, "riskcheck_keys", { status: "revoked" })).toBe(1);
    expect(value(families, "riskcheck_keys", { status: "expired" })).toBe(0);
    for (const secretish of ["xyz", kept.key.id, dropped.key.id, kept.key.prefix, kept.secret, dropped.secret])
      expect(text).not.toContain(secretish);
  });
});

describe("RISKCHECK_METRICS_TOKEN", () => {
  test("when set, a scrape needs it as a Bearer token", async () => {
    const t = await createTestApp({ metricsToken: "scrape-token-0123456789" });
    for (const authorization of [
      undefined,
      "Bearer wrong",
      "Bearer scrape-token-012345678",
      "scrape-token-0123456789",
    ]) {
      const res = await t.request("/metrics", { headers: authorization ? { authorization } : {} });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      expect(((await res.json()) as { error: string }).error).toBe("unauthorized");
    }
    await scrape(t, { authorization: "Bearer scrape-token-0123456789" });
  });

  test("when not set, /metrics is open", async () => {
    await scrape(await createTestApp());
  });
});

describe("where the dates come from", () => {
  test("datasetDates: each source's data date, and the operator's and curated files' dates", async () => {
    const snapshot: Snapshot = {
      ...(await testSnapshot()),
      datasets: [
        { name: "free-domains", file: "email/free.txt", date: "2026-11-01T00:00:00.000Z" },
        { name: "curated/vpn-asns.txt", file: "curated/vpn-asns.txt", date: "2026-11-03T00:00:00.000Z" },
      ],
      outputs: { "free-domains": { count: 1, sources: ["a"] } },
      // "bundled-a" is superseded by "a" (held in the version, feeding nothing): its age would
      // grow forever and keep a data-too-old alert firing however well updates work.
      sources: {
        a: source({ dataDate: "2026-11-02T00:00:00.000Z" }),
        b: source({ dataDate: null }),
        "bundled-a": source({ url: "npm:a/list.json", dataDate: "2024-12-07T08:23:11.000Z" }),
      },
    };
    expect([...datasetDates(snapshot)]).toEqual([
      ["a", "2026-11-02T00:00:00.000Z"],
      ["curated/vpn-asns.txt", "2026-11-03T00:00:00.000Z"],
    ]);
  });

  test("lastUpdateSuccess: the refresh's last success, else the newest check of a network source, else null", () => {
    const sources = {
      bundled: source({ url: "npm:x/y", checkedAt: "2026-11-23T10:00:00.000Z" }),
      ipsum: source({ checkedAt: "2026-11-22T10:00:00.000Z" }),
    };
    expect(lastUpdateSuccess(null, sources)).toBe("2026-11-22T10:00:00.000Z");
    expect(
      lastUpdateSuccess(
        { everyMs: 1, running: false, nextAt: null, last: null, lastSuccessAt: Date.UTC(2026, 10, 23, 11) },
        sources,
      ),
    ).toBe("2026-11-23T11:00:00.000Z");
    expect(lastUpdateSuccess(null, { bundled: sources.bundled })).toBeNull();
  });
});

function source(over: Partial<SourceRecord>): SourceRecord {
  return {
    origin: "https://example.test/list",
    url: "https://example.test/list",
    format: "address-list",
    feeds: "attack",
    licence: "test",
    fetchedAt: "2026-11-23T00:00:00.000Z",
    checkedAt: "2026-11-23T00:00:00.000Z",
    dataDate: null,
    dataDateFrom: null,
    entries: 1,
    bytes: 1,
    raw: "x",
    ...over,
  };
}
