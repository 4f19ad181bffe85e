import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Permission } from "../../src/keys/permissions.ts";
import { POSTGRES_SETUP_TIMEOUT_MS, startTestPostgres } from "../support/postgres.ts";
import { STORE_BACKENDS } from "../support/store-backends.ts";
import { createTestApp } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

// The bundled IP data loads once per process; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(60_000));
beforeAll(startTestPostgres, POSTGRES_SETUP_TIMEOUT_MS);

type App = Awaited<ReturnType<typeof createTestApp>>;

async function keyOf(
  t: App,
  name: string,
  permissions: readonly Permission[],
  ratePerMinute?: number,
): Promise<string> {
  const { secret } = await t.newKey(name, { permissions, ratePerMinute });
  // On PostgreSQL a new key reaches the instance by notification.
  const deadline = performance.now() + scaled(5_000);
  while (t.deps.authenticator.authenticate(secret).outcome !== "active" && performance.now() < deadline)
    await Bun.sleep(5);
  return secret;
}

async function setup(backend: (typeof STORE_BACKENDS)[number]) {
  const t = await createTestApp({ stores: await backend.fresh() });
  const manager = await keyOf(t, "support-tool", ["manage"]);
  const checker = await keyOf(t, "checkout", ["check"]);
  const call = async (method: string, path: string, body?: unknown, key = manager) => {
    const res = await t.request(path, {
      key,
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === "" ? null : JSON.parse(text) };
  };
  const level = async (ip: string) =>
    (await call("GET", `/v1/ip-reputation-check?ip=${ip}`, undefined, checker)).body.reputation.reputation as string;
  return { ...t, manager, checker, call, level };
}

describe.each(STORE_BACKENDS)("the admin API on $name", (backend) => {
  test("POST adds a line that applies at once (201, author the key's name); GET lists it; DELETE removes it (204), then 404", async () => {
    const t = await setup(backend);
    expect(await t.level("8.8.8.8")).toBe("informative");
    const added = await t.call("POST", "/v1/overrides", {
      kind: "ip",
      target: "8.8.8.0/24",
      action: "deny",
      reason: "ticket 4711",
      until: "2099-12-31",
    });
    expect(added.status).toBe(201);
    expect(added.headers.get("content-type")).toBe("application/json");
    expect(added.headers.get("x-ratelimit-limit")).not.toBeNull();
    const line = {
      id: "ip:8.8.8.0-24",
      kind: "ip",
      target: "8.8.8.0/24",
      action: "deny",
      reason: "ticket 4711",
      author: "support-tool",
      created: new Date(t.clock.now).toISOString(),
      until: "2100-01-01T00:00:00.000Z",
      active: true,
    };
    expect(added.body).toEqual(line);
    expect(await t.level("8.8.8.8")).toBe("bad");

    const email = await t.call("POST", "/v1/overrides", {
      kind: "email",
      target: "Mailinator.com",
      action: "allow",
      reason: "partner inboxes",
    });
    expect(email.status).toBe(201);
    expect(email.body).toMatchObject({
      id: "email:mailinator.com",
      kind: "email",
      target: "mailinator.com",
      author: "support-tool",
      until: null,
    });
    const checked = await t.call("GET", "/v1/check?email=a@mailinator.com", undefined, t.checker);
    expect(checked.body.is_disposable).toBe(false);

    expect((await t.call("GET", "/v1/overrides")).body).toEqual({ overrides: [line, email.body] });
    expect((await t.call("GET", "/v1/overrides?kind=ip")).body).toEqual({ overrides: [line] });
    expect((await t.call("GET", "/v1/overrides?kind=email")).body).toEqual({ overrides: [email.body] });

    const removed = await t.call("DELETE", "/v1/overrides/ip:8.8.8.0-24");
    expect(removed.status).toBe(204);
    expect(removed.body).toBeNull();
    expect(await t.level("8.8.8.8")).toBe("informative");
    expect((await t.call("DELETE", "/v1/overrides/ip:8.8.8.0-24")).body).toEqual({
      error: "override_not_found",
      message: expect.any(String),
    });
    expect((await t.call("DELETE", "/v1/overrides/email:mailinator.com")).status).toBe(204);
    expect((await t.call("GET", "/v1/overrides")).body).toEqual({ overrides: [] });
  });

  test("an id names its line however its range is written: '-' or an encoded '/', IPv6 too", async () => {
    const t = await setup(backend);
    for (const target of ["2001:db8::/32", "198.51.100.0/24", "AS64500", "2001:db8::1"]) {
      expect((await t.call("POST", "/v1/overrides", { kind: "ip", target, action: "allow", reason: "r" })).status).toBe(
        201,
      );
    }
    expect((await t.call("GET", "/v1/overrides")).body.overrides.map((l: { id: string }) => l.id)).toEqual([
      "ip:198.51.100.0-24",
      "ip:2001:db8::-32",
      "ip:2001:db8::1",
      "ip:AS64500",
    ]);
    expect((await t.call("DELETE", "/v1/overrides/ip:2001:db8::-32")).status).toBe(204);
    expect((await t.call("DELETE", "/v1/overrides/ip:198.51.100.0%2F24")).status).toBe(204);
    expect((await t.call("DELETE", "/v1/overrides/ip:as64500")).status).toBe(204);
    for (const id of ["ip:2001:db8::1-", "nope", "ip:", "email:", "url:x", "ip:198.51.100.7-24", "%E0%A4%A"])
      expect((await t.call("DELETE", `/v1/overrides/${id}`)).status).toBe(404);
    expect((await t.call("GET", "/v1/overrides")).body.overrides.map((l: { id: string }) => l.id)).toEqual([
      "ip:2001:db8::1",
    ]);
  });

  test.each([
    [{ kind: "ip", target: "8.8.8.8/24", action: "deny", reason: "r" }, "invalid_target", "host bits set"],
    [{ kind: "ip", target: "example.com", action: "deny", reason: "r" }, "invalid_target", "not an IP address"],
    [{ kind: "email", target: "not a domain", action: "deny", reason: "r" }, "invalid_target", "not a domain name"],
    [{ kind: "asn", target: "AS1", action: "deny", reason: "r" }, "unknown_kind", "kind must be ip"],
    [{ target: "8.8.8.8", action: "deny", reason: "r" }, "unknown_kind", "kind must be ip"],
    [{ kind: "ip", target: "8.8.8.8", action: "deny" }, "missing_reason", "say why with reason"],
    [{ kind: "ip", target: "8.8.8.8", action: "deny", reason: "  " }, "missing_reason", "say why"],
    [
      { kind: "ip", target: "8.8.8.8", action: "deny", reason: "r", until: "2020-01-01" },
      "until_passed",
      "until 2020-01-01 has already passed",
    ],
    [{ kind: "ip", target: "8.8.8.8", action: "deny", reason: "r", until: "soon" }, "invalid_until", "not a date"],
    [{ kind: "ip", target: "8.8.8.8", action: "block", reason: "r" }, "invalid_action", "allow or deny"],
    [{ kind: "ip", target: 8, action: "deny", reason: "r" }, "invalid_body", "must be JSON"],
    ['{"kind": "ip",', "invalid_body", "must be JSON"],
    ["[]", "invalid_body", "must be JSON"],
  ])("POST %j is a 400 with the code %s, and stores nothing", async (body, error, message) => {
    const t = await setup(backend);
    const refused = await t.call("POST", "/v1/overrides", body);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe(error);
    expect(refused.body.message).toContain(message);
    expect((await t.call("GET", "/v1/overrides")).body).toEqual({ overrides: [] });
  });

  test("GET ?kind= of another kind is a 400 unknown_kind", async () => {
    const t = await setup(backend);
    expect((await t.call("GET", "/v1/overrides?kind=asn")).body.error).toBe("unknown_kind");
  });

  test("a check-only key (and a report one) gets 403 on every route; no key, 401; nothing changes", async () => {
    const t = await setup(backend);
    const reporter = await keyOf(t, "waf", ["check", "report"]);
    for (const key of [t.checker, reporter]) {
      for (const [method, path] of [
        ["GET", "/v1/overrides"],
        ["POST", "/v1/overrides"],
        ["DELETE", "/v1/overrides/ip:8.8.8.8"],
      ]) {
        const refused = await t.call(
          method,
          path,
          method === "POST" ? { kind: "ip", target: "8.8.8.8", action: "allow", reason: "r" } : undefined,
          key,
        );
        expect(refused.status).toBe(403);
        expect(refused.body.error).toBe("forbidden");
      }
    }
    expect((await t.handle(new Request("http://riskcheck.test/v1/overrides"))).status).toBe(401);
    expect(await t.stores.ipOverrides.list()).toEqual([]);
    // A manage key used from outside its allowed networks is refused for that, and told so.
    const { secret: fenced } = await t.newKey("fenced-tool", {
      permissions: ["manage"],
      allowedNetworks: ["10.0.0.0/8"],
    });
    const deadline = performance.now() + scaled(5_000);
    while (t.deps.authenticator.authenticate(fenced).outcome !== "active" && performance.now() < deadline)
      await Bun.sleep(5);
    const outside = await t.call("GET", "/v1/overrides", undefined, fenced);
    expect([outside.status, outside.body.error]).toEqual([403, "forbidden"]);
    expect(outside.body.message).toContain("is not allowed from 203.0.113.7");
    expect((await t.call("GET", "/v1/overrides", undefined, t.checker)).body.message).toContain("--permissions manage");
    // The manage key checks nothing: it is a key for the team's tools, not its back ends.
    expect((await t.call("GET", "/v1/ip-reputation-check?ip=8.8.8.8")).status).toBe(403);
  });

  test("rate-limited like any call", async () => {
    const t = await setup(backend);
    const slow = await keyOf(t, "slow-tool", ["manage"], 1);
    expect((await t.call("GET", "/v1/overrides", undefined, slow)).status).toBe(200);
    const limited = await t.call(
      "POST",
      "/v1/overrides",
      { kind: "ip", target: "8.8.8.8", action: "allow", reason: "r" },
      slow,
    );
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe("rate_limit_exceeded");
    expect(await t.stores.ipOverrides.list()).toEqual([]);
  });
});
