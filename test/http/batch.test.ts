import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { MAX_BATCH_BYTES } from "../../src/http/batch-limits.ts";
import { mixedEmails, putOverrides } from "../support/mixed-emails.ts";
import { parsePrometheusText } from "../support/prometheus-text.ts";
import { createTestApp } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

// The first test loads the bundled IP data; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(60_000));

async function setup(
  options: Parameters<typeof createTestApp>[0] = {},
  key: { ipQuotaPerMonth?: number; ratePerMinute?: number } = {},
) {
  const t = await createTestApp(options);
  const { key: record, secret } = await t.newKey("batch", key);
  const batch = (body: unknown, query = "", headers: Record<string, string> = {}) =>
    t.request(`/v1/check/batch${query}`, {
      key: secret,
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  return { ...t, secret, keyId: record.id, batch };
}

/** The body's items as the server wrote them: each item's own bytes, for a byte-for-byte comparison. */
async function batchItems(res: Response): Promise<string[]> {
  const body = (await res.json()) as { emails: unknown[] };
  return body.emails.map((item) => JSON.stringify(item));
}

const EMAILS = ["jane@gmail.com", "not-an-address", 42, "bob@mailinator.com", "x@sub.33mail.com", null, "ok@duck.com"];
const IPS = ["8.8.8.8", "nope", "2001:4860:4860:0:0:0:0:8888", 7, "10.1.2.3", "81.2.69.142", "999.1.1.1"];

describe("POST /v1/check/batch", () => {
  test("answers in input order, each item exactly the GET endpoint's answer or its error", async () => {
    const t = await setup();
    for (const query of ["", "?explain=1"]) {
      const res = await t.batch({ emails: EMAILS, ips: IPS }, query);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      const body = (await res.json()) as { emails: unknown[]; ips: unknown[] };
      expect(Object.keys(body)).toEqual(["emails", "ips"]);
      expect(body.emails).toHaveLength(EMAILS.length);
      expect(body.ips).toHaveLength(IPS.length);
      for (const [i, value] of EMAILS.entries()) {
        const get = await t.request(
          `/v1/check?email=${encodeURIComponent(String(value))}${query ? "&explain=1" : ""}`,
          { key: t.secret },
        );
        const answer = await get.json();
        if (get.status === 200 && typeof value === "string")
          expect(JSON.stringify(body.emails[i])).toBe(JSON.stringify(answer));
        else
          expect(body.emails[i]).toEqual({
            input: value,
            error: "invalid_email",
            message: "The provided email address is not valid",
          });
      }
      for (const [i, value] of IPS.entries()) {
        const get = await t.request(
          `/v1/ip-reputation-check?ip=${encodeURIComponent(String(value))}${query ? "&explain=1" : ""}`,
          { key: t.secret },
        );
        const answer = await get.json();
        if (get.status === 200 && typeof value === "string")
          expect(JSON.stringify(body.ips[i])).toBe(JSON.stringify(answer));
        else expect(body.ips[i]).toEqual({ input: value, error: "invalid_ip", message: "invalid IP address format" });
      }
      expect(body.ips[0]).toMatchObject({ ip: "8.8.8.8", country_code: "US" });
      expect(body.ips[2]).toMatchObject({ ip: "2001:4860:4860::8888" });
      if (query) expect(body.ips[0]).toHaveProperty("reputation.reasons");
      else expect(body.ips[0]).not.toHaveProperty("reputation.reasons");
      if (query) expect(body.emails[0]).toHaveProperty("reasons.rule", "not-listed");
      else expect(body.emails[0]).not.toHaveProperty("reasons");
    }
  });

  test("with ?explain=1, every email item is byte for byte the GET answer with explain, override lines included", async () => {
    const t = await setup();
    await putOverrides(t);
    const emails = mixedEmails(400);
    for (const explain of [true, false]) {
      const res = await t.batch({ emails: emails.slice(0, 200) }, explain ? "?explain=1" : "");
      const res2 = await t.batch({ emails: emails.slice(200) }, explain ? "?explain=1" : "");
      expect([res.status, res2.status]).toEqual([200, 200]);
      const items = [...(await batchItems(res)), ...(await batchItems(res2))];
      expect(items).toHaveLength(emails.length);
      const rules = new Set<string>();
      for (const [i, email] of emails.entries()) {
        const get = await t.request(`/v1/check?email=${encodeURIComponent(email)}${explain ? "&explain=1" : ""}`, {
          key: t.secret,
        });
        if (get.status === 200) expect(items[i]).toBe(await get.text());
        else
          expect(JSON.parse(items[i])).toEqual({
            input: email,
            error: "invalid_email",
            message: "The provided email address is not valid",
          });
        const reasons = JSON.parse(items[i]).reasons;
        if (explain && reasons)
          rules.add(
            reasons.rule +
              (reasons.override ? `:${reasons.override.action}` : "") +
              (reasons.did_you_mean ? ":typo" : "") +
              (reasons.relay ? ":relay" : ""),
          );
        if (!explain) expect(reasons).toBeUndefined();
      }
      // The mixture meets the explanation's cases: an override each way, the allowlist, a relay, a typo hint.
      if (explain)
        for (const rule of ["allowlisted:allow", "denylisted:deny", "listed", "wildcard", "not-listed:typo"])
          expect(rules).toContain(rule);
      if (explain) expect([...rules].some((r) => r.endsWith(":relay"))).toBe(true);
    }
  });

  test("either list may be left out or empty", async () => {
    const t = await setup();
    expect(await (await t.batch({ emails: ["jane@gmail.com"] })).json()).toEqual({
      emails: [{ email: "jane@gmail.com", is_disposable: false, domain: "gmail.com", free_email: true }],
      ips: [],
    });
    expect(await (await t.batch({})).json()).toEqual({ emails: [], ips: [] });
  });

  test("bodies that are not a batch get the standard error body", async () => {
    const t = await setup();
    const cases: [string, number, string][] = [
      ["not json", 400, "invalid_body"],
      ["[1,2]", 400, "invalid_body"],
      ["null", 400, "invalid_body"],
      ['{"emails":"a@b.c"}', 400, "invalid_body"],
      ['{"ip":["1.1.1.1"]}', 400, "invalid_body"],
      ["", 400, "invalid_body"],
      [
        JSON.stringify({ emails: Array(600).fill("a@gmail.com"), ips: Array(401).fill("8.8.8.8") }),
        400,
        "too_many_items",
      ],
      [JSON.stringify({ emails: ["x".repeat(MAX_BATCH_BYTES)] }), 413, "body_too_large"],
      // Echoing an item recurses: one nested 50,000 deep would overflow the stack (a 500); it is refused whole.
      [`{"ips":["1.1.1.1",${"[".repeat(50_000)}${"]".repeat(50_000)}]}`, 400, "invalid_body"],
      [`{"emails":[${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}]}`, 400, "invalid_body"],
    ];
    for (const [body, status, error] of cases) {
      const res = await t.batch(body);
      expect(res.status).toBe(status);
      const answer = (await res.json()) as Record<string, unknown>;
      expect(answer).toEqual({ error, message: expect.any(String) });
      expect(res.headers.get("x-ratelimit-limit")).not.toBeNull();
    }
    expect((await t.batch({ emails: Array(600).fill("a@gmail.com"), ips: Array(400).fill("8.8.8.8") })).status).toBe(
      200,
    );
    expect(t.errors).toEqual([]);
    // A mistaken item of a few levels is still answered as an item error, echoed.
    expect(await batchItems(await t.batch({ emails: [{ a: [[1]] }] }))).toEqual([
      '{"input":{"a":[[1]]},"error":"invalid_email","message":"The provided email address is not valid"}',
    ]);
  });

  test("a body over 1 MiB sent without a length is cut off and refused with 413", async () => {
    const t = await setup();
    const piece = new TextEncoder().encode(`"${"y".repeat(64 * 1024)}",`);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"emails":['));
        if (sent > 2 * MAX_BATCH_BYTES) return controller.close();
        controller.enqueue(piece);
        sent += piece.length;
      },
    });
    // Over a socket, as a client sends it: Bun's own upload limit is above the route's.
    await using served = t.listenOnLoopback();
    const res = await fetch(`${served.server.url.origin}/v1/check/batch`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.secret}` },
      body,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: "body_too_large" });
  });

  test("authentication as for one request", async () => {
    const t = await setup();
    const res = await t.request("/v1/check/batch", { method: "POST", body: '{"ips":["8.8.8.8"]}' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: "No API key provided",
      message: "Please include your API key in the Authorization header",
    });
  });

  test("one rate-limit token per request, however many items", async () => {
    const t = await setup({ ratePerMinute: 1, rateBurst: 2 });
    const items = { emails: Array(500).fill("jane@gmail.com"), ips: Array(500).fill("8.8.8.8") };
    expect((await t.batch(items)).status).toBe(200);
    const second = await t.batch(items);
    expect(second.status).toBe(200);
    expect(second.headers.get("x-ratelimit-remaining")).toBe("0");
    const third = await t.batch({ emails: ["jane@gmail.com"] });
    expect(third.status).toBe(429);
    expect(await third.json()).toEqual({
      error: "rate_limit_exceeded",
      message: "Rate limit exceeded. Please try again later.",
      retry_after: 60,
    });
  });

  test("every IP item looked up uses one quota check; a batch that does not fit is refused whole with the quota 429", async () => {
    const t = await setup({}, { ipQuotaPerMonth: 5 });
    // The private address is answered without a lookup and, as on the GET, spends no quota.
    const first = await t.batch({
      emails: ["jane@gmail.com"],
      ips: ["8.8.8.8", "1.1.1.1", "bogus", "81.2.69.142", "10.0.0.1"],
    });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-quota-limit")).toBe("5");
    expect(first.headers.get("x-quota-remaining")).toBe("2");

    const refused = await t.batch({ emails: ["jane@gmail.com"], ips: ["8.8.8.8", "1.1.1.1", "81.2.69.142"] });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: "quota_exceeded",
      message: "Monthly quota exceeded. Please upgrade your plan or wait until next month.",
      retry_after: 86400,
    });
    expect(refused.headers.get("x-quota-remaining")).toBe("2");
    expect(refused.headers.get("x-quota-reset")).toBe("2026-12-01T00:00:00Z");
    expect(Number(refused.headers.get("x-ratelimit-reset"))).toBeGreaterThan(0);

    const fits = await t.batch({ ips: ["8.8.8.8", "1.1.1.1"] });
    expect(fits.status).toBe(200);
    expect(fits.headers.get("x-quota-remaining")).toBe("0");
    expect((await t.request("/v1/ip-reputation-check?ip=8.8.8.8", { key: t.secret })).status).toBe(429);
    // Emails and private addresses use no quota: a batch of them alone still goes through.
    const unmetered = await t.batch({ emails: ["jane@gmail.com"], ips: ["192.168.1.1", "::1"] });
    expect(unmetered.status).toBe(200);
    expect(unmetered.headers.get("x-quota-remaining")).toBeNull();
    expect(((await unmetered.json()) as { ips: { ip: string }[] }).ips.map((a) => a.ip)).toEqual([
      "192.168.1.1",
      "::1",
    ]);

    await t.usage.flush();
    const usage = (await t.usageStore.usageOf([t.keyId], 0, t.clock.now)).get(t.keyId)!;
    // The day's counts hold every outcome: 2 emails answered; 8 IP items answered (5 on the quota),
    // 1 invalid, and two refusals (the batch, the GET).
    expect(usage.today).toEqual({ email: 2, ip: 11 });
    expect(usage.ipQuotaUsed).toBe(5);
  });

  test("metrics count batch requests and their items", async () => {
    const t = await setup();
    await t.batch({ emails: ["jane@gmail.com", "bad"], ips: ["8.8.8.8", "1.1.1.1", "x"] });
    await t.batch("not json");
    const families = parsePrometheusText(await (await t.request("/metrics")).text());
    const sample = (family: string, labels: Record<string, string>) =>
      families.get(family)?.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
    expect(sample("riskcheck_requests_total", { endpoint: "/v1/check/batch", status: "200" })).toBe(1);
    expect(sample("riskcheck_requests_total", { endpoint: "/v1/check/batch", status: "400" })).toBe(1);
    expect(sample("riskcheck_batch_items_total", { kind: "email", result: "answered" })).toBe(1);
    expect(sample("riskcheck_batch_items_total", { kind: "email", result: "invalid" })).toBe(1);
    expect(sample("riskcheck_batch_items_total", { kind: "ip", result: "answered" })).toBe(2);
    expect(sample("riskcheck_batch_items_total", { kind: "ip", result: "invalid" })).toBe(1);
  });
});
