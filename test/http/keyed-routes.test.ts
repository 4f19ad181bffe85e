import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { PERMISSIONS, type Permission } from "../../src/keys/permissions.ts";
import { createTestApp } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

// The first app loads the bundled IP data; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

/**
 * The routes that need no key, on purpose. Every other route the app serves is a keyed route
 * and meets every case below, found in the app itself: a new route gets them without a line here.
 */
const OPEN = [/^\/healthz$/, /^\/v1\/about$/, /^\/openapi\.json$/, /^\/metrics$/, /^\/dashboard(\/|$)/];

/**
 * The requests that use up the monthly IP quota, by route. A keyed route not named here is one
 * that no request of an exhausted key may find refused for the quota.
 */
const QUOTA_SPENDING: Record<string, { query?: string; body?: string }> = {
  "GET /v1/ip-reputation-check": { query: "?ip=8.8.8.8" },
  "POST /v1/check/batch": { body: '{"ips":["8.8.8.8"]}' },
  "GET /v1/assess": { query: "?ip=8.8.8.8" },
  "POST /v1/assess": { body: '{"ip":"8.8.8.8"}' },
};

const { app } = await createTestApp();
const KEYED = app.routes
  .filter((r) => r.method !== "HEAD" && !OPEN.some((open) => open.test(r.path)))
  // A path parameter gets a value; admission comes before the route looks at it.
  .map((r) => ({ name: `${r.method} ${r.path}`, method: r.method, path: r.path.replace(/:[^/]+/g, "x") }));

const MISSING = { error: "No API key provided", message: "Please include your API key in the Authorization header" };
const UNKNOWN = { error: "Invalid API key", message: "The provided API key is not valid" };
const REVOKED = { error: "API key revoked", message: "This API key has been revoked. Please generate a new one." };
const RATE_LIMITED = {
  error: "rate_limit_exceeded",
  message: "Rate limit exceeded. Please try again later.",
  retry_after: 60,
};
const QUOTA_EXCEEDED = {
  error: "quota_exceeded",
  message: "Monthly quota exceeded. Please upgrade your plan or wait until next month.",
  retry_after: 86400,
};

/** A body that says whether anything read it: a route must not read one before the rate limit lets it. */
function watchedBody(text: string) {
  const watch = { read: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        watch.read = true;
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, watch };
}

function send(
  handle: (r: Request) => Promise<Response>,
  route: (typeof KEYED)[number],
  secret: string | null,
  init: { query?: string; body?: string | ReadableStream<Uint8Array> } = {},
) {
  const headers: Record<string, string> = secret === null ? {} : { authorization: `Bearer ${secret}` };
  const body = route.method === "GET" ? undefined : (init.body ?? "{}");
  return handle(
    new Request(`http://riskcheck.test${route.path}${init.query ?? ""}`, { method: route.method, headers, body }),
  );
}

test("the app has keyed routes, and the quota's requests name only keyed routes", () => {
  const names = KEYED.map((r) => r.name);
  expect(names).toEqual(
    expect.arrayContaining([
      "GET /v1/check",
      "GET /v1/ip-reputation-check",
      "POST /v1/check/batch",
      "GET /v1/assess",
      "POST /v1/assess",
      "POST /v1/reports",
    ]),
  );
  for (const name of Object.keys(QUOTA_SPENDING)) expect(names).toContain(name);
});

describe.each(KEYED.map((r) => [r.name, r] as const))("%s", (_, route) => {
  test("authentication: no key, an unknown key and a revoked key are the three 401s, with no limit headers", async () => {
    const { handle, newKey, keys } = await createTestApp();
    const { key, secret } = await newKey("all", { permissions: PERMISSIONS });
    await keys.revoke(key.id);
    for (const [given, expected] of [
      [null, MISSING],
      [`rk_${"x".repeat(43)}`, UNKNOWN],
      [secret, REVOKED],
    ] as const) {
      const res = await send(handle, route, given);
      expect([res.status, res.headers.get("content-type"), await res.json()]).toEqual([
        401,
        "application/json",
        expected,
      ]);
      expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    }
  });

  test("permission: exactly one permission admits; a key with every other one gets the 403, its body unread", async () => {
    const { handle, newKey } = await createTestApp();
    const admitting: Permission[] = [];
    for (const permission of PERMISSIONS) {
      const { secret } = await newKey(permission, { permissions: [permission] });
      if ((await send(handle, route, secret)).status !== 403) admitting.push(permission);
    }
    expect(admitting).toHaveLength(1);
    const others = PERMISSIONS.filter((p) => p !== admitting[0]);
    if (others.length === 0) return;
    const { secret } = await newKey("others", { permissions: others });
    const { stream, watch } = watchedBody("{}");
    const res = await send(handle, route, secret, { body: stream });
    expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([403, "forbidden"]);
    expect(watch.read).toBe(false);
  });

  test("rate limit: before validation, with its headers, counted, and a refused request's body is never read", async () => {
    const { handle, newKey, usage, usageStore, clock } = await createTestApp({ ratePerMinute: 60, rateBurst: 1 });
    const { key, secret } = await newKey("rated", { permissions: PERMISSIONS });
    const counted = async () => {
      await usage.flush();
      const month = (await usageStore.usageOf([key.id], 0, clock.now)).get(key.id)!.month;
      return Object.values(month).reduce((a, b) => a + b, 0);
    };
    const first = await send(handle, route, secret);
    expect(first.status).not.toBe(429);
    expect(first.headers.get("x-ratelimit-remaining")).toBe("0");
    const before = await counted();
    const { stream, watch } = watchedBody('{"emails":["a@gmail.com"],"ips":["8.8.8.8"]}');
    const refused = await send(handle, route, secret, { query: "?email=bad&ip=bad", body: stream });
    expect([refused.status, refused.headers.get("content-type"), await refused.json()]).toEqual([
      429,
      "application/json",
      RATE_LIMITED,
    ]);
    expect([
      refused.headers.get("x-ratelimit-limit"),
      refused.headers.get("x-ratelimit-remaining"),
      refused.headers.get("x-ratelimit-reset"),
    ]).toEqual(["1", "0", "1"]);
    expect(watch.read).toBe(false);
    expect(await counted()).toBe(before + 1);
  });

  test("quota: an exhausted key is refused with the quota's 429 where the request would use it, and nowhere else", async () => {
    const { handle, request, newKey } = await createTestApp({ ipQuotaPerMonth: 1 });
    const { secret } = await newKey("metered", { permissions: PERMISSIONS });
    expect((await request("/v1/ip-reputation-check?ip=1.1.1.1", { key: secret })).status).toBe(200);
    const spending = QUOTA_SPENDING[route.name];
    const res = await send(handle, route, secret, spending ?? {});
    if (spending === undefined) {
      expect(res.status).not.toBe(429);
      expect(res.headers.get("x-quota-remaining")).toBeNull();
      return;
    }
    expect([res.status, await res.json()]).toEqual([429, QUOTA_EXCEEDED]);
    expect([
      res.headers.get("x-quota-limit"),
      res.headers.get("x-quota-remaining"),
      res.headers.get("x-quota-reset"),
    ]).toEqual(["1", "0", "2026-12-01T00:00:00Z"]);
    expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(0);
  });
});
