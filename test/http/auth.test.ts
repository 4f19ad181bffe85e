import { describe, expect, test } from "bun:test";
import { generateSecret } from "../../src/keys/secret.ts";
import { createTestApp } from "../support/test-app.ts";

const MISSING = { error: "No API key provided", message: "Please include your API key in the Authorization header" };
const UNKNOWN = { error: "Invalid API key", message: "The provided API key is not valid" };
const REVOKED = { error: "API key revoked", message: "This API key has been revoked. Please generate a new one." };

const ENDPOINTS = ["/v1/check?email=a@gmail.com", "/v1/ip-reputation-check?ip=8.8.8.8"];

describe.each(ENDPOINTS)("401 variants on %s", (path) => {
  test.each([
    ["no Authorization header", {}],
    ["an empty header", { authorization: "" }],
    ["Bearer without a token", { authorization: "Bearer" }],
    ["Bearer and a space only", { authorization: "Bearer " }],
    ["another scheme", { authorization: "Basic dXNlcjpwYXNz" }],
    ["a tab after the scheme", { authorization: "Bearer\trk_abc" }],
    ["a scheme that only starts like Bearer", { authorization: "Bearers rk_abc" }],
    ["no space", { authorization: "Bearerrk_abc" }],
    ["two spaces", { authorization: "Bearer  rk_abc" }],
    ["a token with a space", { authorization: "Bearer rk_a rk_b" }],
    ["an oversized header", { authorization: `Bearer ${"a".repeat(10_000)}` }],
  ])("%s → No API key provided", async (_, headers) => {
    const { request } = await createTestApp();
    const res = await request(path, { headers });
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual(MISSING);
  });

  test.each(["bearer", "BEARER", "bEaReR"])("the scheme is case-insensitive: %s <key> is accepted", async (scheme) => {
    const { request, newKey } = await createTestApp();
    const { secret } = await newKey();
    expect((await request(path, { headers: { authorization: `${scheme} ${secret}` } })).status).toBe(200);
  });

  test("a key in the query string is not accepted", async () => {
    const { request, newKey } = await createTestApp();
    const { secret } = await newKey();
    const res = await request(`${path}&access_token=${secret}`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(MISSING);
  });

  test.each([
    ["a random well-formed key", generateSecret()],
    ["garbage", "hunter2"],
    ["almost a key", `rk_${"x".repeat(43)}`],
  ])("%s → Invalid API key", async (_, key) => {
    const { request } = await createTestApp();
    const res = await request(path, { key });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(UNKNOWN);
  });

  test("a revoked key → API key revoked, from the very next request", async () => {
    const { request, newKey, keys } = await createTestApp();
    const { key, secret } = await newKey();
    expect((await request(path, { key: secret })).status).not.toBe(401);
    await keys.revoke(key.id);
    const res = await request(path, { key: secret });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(REVOKED);
  });
});

describe("unknown paths and methods", () => {
  test.each([
    ["GET", "/"],
    ["GET", "/v1"],
    ["GET", "/v2/check?email=a@b.com"],
    ["GET", "/v1/check/extra"],
    ["GET", "/v1/check/?email=a@b.com"],
    ["GET", "/V1/check?email=a@b.com"],
    ["GET", "/v1/%63heck?email=a@b.com"],
    ["POST", "/v1/check?email=a@b.com"],
    ["DELETE", "/v1/ip-reputation-check"],
    ["PUT", "/healthz"],
  ])("%s %s → JSON 404", async (method, path) => {
    const { request, newKey } = await createTestApp();
    const res = await request(path, { method, key: (await newKey()).secret });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ error: "not_found", message: expect.any(String) });
  });
});

test("a trailing slash on the dashboard's address leads to it", async () => {
  const { request } = await createTestApp();
  const res = await request("/dashboard/");
  expect(res.status).toBe(308);
  expect(res.headers.get("location")).toBe("/dashboard");
});

describe("the key is read from the Authorization header only", () => {
  const QUERIES = ["access_token", "api_key", "apikey", "key", "token", "bearer"];
  test.each(ENDPOINTS)("a valid key in the query string of %s authenticates nothing", async (path) => {
    const { request, newKey, usageStore, usage } = await createTestApp();
    const { secret, key } = await newKey();
    for (const name of QUERIES) {
      const res = await request(`${path}&${name}=${secret}`);
      expect([name, res.status]).toEqual([name, 401]);
      expect(await res.json()).toEqual(MISSING);
    }
    const authorization = await request(`${path}&authorization=${encodeURIComponent(`Bearer ${secret}`)}`);
    expect(authorization.status).toBe(401);
    // With the header, the same request is answered: the key itself was good.
    expect((await request(`${path}&access_token=${secret}`, { key: secret })).status).toBe(200);
    await usage.flush();
    const month = (await usageStore.usageOf([key.id], 0, Date.UTC(2026, 10, 23, 12))).get(key.id)!.month;
    expect(Object.values(month).reduce((a, b) => a + b, 0)).toBe(1);
  });

  test("over a socket too, where Bun parses the request", async () => {
    const { listenOnLoopback, newKey } = await createTestApp();
    const { secret } = await newKey();
    await using served = listenOnLoopback();
    const res = await served.request(`/v1/ip-reputation-check?ip=8.8.8.8&access_token=${secret}`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(MISSING);
    expect(
      (await served.request("/v1/ip-reputation-check?ip=8.8.8.8", { headers: { authorization: `bEaReR ${secret}` } }))
        .status,
    ).toBe(200);
  });
});

describe("HEAD and other methods on the API are 404 and spend nothing", () => {
  const API = ["/v1/check?email=a@gmail.com", "/v1/ip-reputation-check?ip=8.8.8.8"];
  test.each(["HEAD", "OPTIONS", "PATCH", "PUT", "DELETE", "POST"])("%s", async (method) => {
    const { request, newKey, listenOnLoopback } = await createTestApp({
      ratePerMinute: 60,
      rateBurst: 1,
      ipQuotaPerMonth: 1,
    });
    const { secret } = await newKey();
    await using served = listenOnLoopback();
    for (const path of API) {
      const inProcess = await request(path, { method, key: secret });
      expect([path, inProcess.status]).toEqual([path, 404]);
      expect(inProcess.headers.get("x-ratelimit-remaining")).toBeNull();
      if (method !== "HEAD")
        expect(await inProcess.json()).toEqual({ error: "not_found", message: expect.any(String) });
      const overSocket = await served.request(path, { method, key: secret });
      expect([path, overSocket.status]).toEqual([path, 404]);
    }
    // The one token of the burst and the one check of the quota are still there.
    const res = await request(API[1], { key: secret });
    expect([res.status, res.headers.get("x-ratelimit-remaining"), res.headers.get("x-quota-remaining")]).toEqual([
      200,
      "0",
      "0",
    ]);
  });
});

test("HEAD of a GET route is answered as GET is, without a body", async () => {
  const { request } = await createTestApp();
  const res = await request("/healthz", { method: "HEAD" });
  expect(res.status).toBe(200);
  expect(await res.text()).toBe("");
});

describe("health", () => {
  test("answers without a key", async () => {
    const { request } = await createTestApp();
    const res = await request("/healthz");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toMatchObject({ status: "ok", datasets: [] });
  });
});
