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

const LINE = { action: "deny" as const, reason: "r", author: "ops", created: "2026-11-23T00:00:00.000Z", until: null };

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

    expect((await t.call("GET", "/v1/overrides")).body).toEqual({ overrides: [line, email.body], next: null });
    expect((await t.call("GET", "/v1/overrides?kind=ip")).body).toEqual({ overrides: [line], next: null });
    expect((await t.call("GET", "/v1/overrides?kind=email")).body).toEqual({ overrides: [email.body], next: null });

    const removed = await t.call("DELETE", "/v1/overrides/ip:8.8.8.0-24");
    expect(removed.status).toBe(204);
    expect(removed.body).toBeNull();
    expect(await t.level("8.8.8.8")).toBe("informative");
    expect((await t.call("DELETE", "/v1/overrides/ip:8.8.8.0-24")).body).toEqual({
      error: "override_not_found",
      message: expect.any(String),
    });
    expect((await t.call("DELETE", "/v1/overrides/email:mailinator.com")).status).toBe(204);
    expect((await t.call("GET", "/v1/overrides")).body).toEqual({ overrides: [], next: null });
  });

  test("an id names its line however its range is written: '-' or an encoded '/', IPv6 too", async () => {
    const t = await setup(backend);
    for (const target of ["2a00:1450::/32", "81.2.69.0/24", "AS64500", "2a00:1450::1"]) {
      expect((await t.call("POST", "/v1/overrides", { kind: "ip", target, action: "allow", reason: "r" })).status).toBe(
        201,
      );
    }
    expect((await t.call("GET", "/v1/overrides")).body.overrides.map((l: { id: string }) => l.id)).toEqual([
      "ip:2a00:1450::-32",
      "ip:2a00:1450::1",
      "ip:81.2.69.0-24",
      "ip:AS64500",
    ]);
    expect((await t.call("DELETE", "/v1/overrides/ip:2a00:1450::-32")).status).toBe(204);
    expect((await t.call("DELETE", "/v1/overrides/ip:81.2.69.0%2F24")).status).toBe(204);
    expect((await t.call("DELETE", "/v1/overrides/ip:as64500")).status).toBe(204);
    for (const id of ["ip:2a00:1450::1-", "nope", "ip:", "email:", "url:x", "ip:81.2.69.7-24", "%E0%A4%A"])
      expect((await t.call("DELETE", `/v1/overrides/${id}`)).status).toBe(404);
    expect((await t.call("GET", "/v1/overrides")).body.overrides.map((l: { id: string }) => l.id)).toEqual([
      "ip:2a00:1450::1",
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
    [{ kind: "ip", target: "8.8.8.8", action: "deny", reason: "r\u001b[2J" }, "invalid_reason", "one line of text"],
    [
      { kind: "email", target: "a.example", action: "deny", reason: "one\r\ntwo" },
      "invalid_reason",
      "one line of text",
    ],
    [
      { kind: "email", target: "a.example", action: "deny", reason: "\u202eevil" },
      "invalid_reason",
      "one line of text",
    ],
    [
      { kind: "email", target: "github.io", action: "deny", reason: "r" },
      "public_suffix",
      "github.io is a public suffix",
    ],
    [{ kind: "email", target: "co.uk", action: "deny", reason: "r" }, "public_suffix", "co.uk is a public suffix"],
  ])("POST %j is a 400 with the code %s, and stores nothing", async (body, error, message) => {
    const t = await setup(backend);
    const refused = await t.call("POST", "/v1/overrides", body);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe(error);
    expect(refused.body.message).toContain(message);
    expect((await t.call("GET", "/v1/overrides")).body).toEqual({ overrides: [], next: null });
  });

  test("a public suffix of either section of the list is taken when forced, recorded as such; a name under one as it is", async () => {
    const t = await setup(backend);
    const line = { kind: "email", target: "github.io", action: "deny", reason: "pages spam", force: true };
    expect((await t.call("POST", "/v1/overrides", line)).status).toBe(201);
    const [event] = await t.stores.audit.read({ target: "github.io" }, { order: "newest_first", limit: 1 });
    expect(event.detail).toBe("forced: a public suffix, the line covers every domain under it");
    expect((await t.call("POST", "/v1/overrides", { ...line, target: "spam.github.io", force: false })).status).toBe(
      201,
    );
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
  test("GET pages the lines, IP before email, each in target order, by action and by the start of the target", async () => {
    const t = await setup(backend);
    const ips = Array.from({ length: 7 }, (_, i) => `81.2.69.${i + 10}`);
    for (const [i, target] of ips.entries())
      await t.stores.ipOverrides.put({ ...LINE, target, action: i % 2 === 0 ? "deny" : "allow" });
    for (const domain of ["a.example", "b.example", "c.example"])
      await t.stores.emailOverrides.put({ ...LINE, domain });
    const ids: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const page = await t.call("GET", `/v1/overrides?limit=4${after === null ? "" : `&after=${after}`}`);
      expect(page.status).toBe(200);
      expect(page.body.overrides.length).toBeLessThanOrEqual(4);
      ids.push(...page.body.overrides.map((l: { id: string }) => l.id));
      after = page.body.next;
      pages++;
    } while (after !== null);
    expect(pages).toBe(3);
    expect(ids).toEqual([...ips.map((ip) => `ip:${ip}`), "email:a.example", "email:b.example", "email:c.example"]);
    const denied = await t.call("GET", "/v1/overrides?kind=ip&action=deny&target=81.2.69.1");
    expect(denied.body.overrides.map((l: { target: string }) => l.target)).toEqual([
      "81.2.69.10",
      "81.2.69.12",
      "81.2.69.14",
      "81.2.69.16",
    ]);
    const emails = await t.call("GET", "/v1/overrides?after=email:a.example");
    expect(emails.body).toMatchObject({ overrides: [{ target: "b.example" }, { target: "c.example" }], next: null });
    for (const query of [
      "limit=0",
      "limit=1001",
      "limit=ten",
      "after=nope",
      "kind=email&after=ip:81.2.69.10",
      "color=red",
      "limit=1&limit=2",
      "target=%1B",
    ]) {
      const refused = await t.call("GET", `/v1/overrides?${query}`);
      expect([refused.status, refused.body.error]).toEqual([400, "invalid_parameter"]);
    }
    expect((await t.call("GET", "/v1/overrides?action=block")).body.error).toBe("invalid_action");
  });

  test("a new line past the limits is refused with 409 limit_reached, the refusal recorded; a replace still goes", async () => {
    const t = await createTestApp({ stores: await backend.fresh(), overrideLimits: { lines: 3, linesPerKey: 2 } });
    const one = await keyOf(t, "tool-one", ["manage"]);
    const two = await keyOf(t, "tool-two", ["manage"]);
    const post = (key: string, target: string, reason = "r") =>
      t.request("/v1/overrides", {
        key,
        method: "POST",
        body: JSON.stringify({ kind: "ip", target, action: "deny", reason }),
      });
    expect((await post(one, "81.2.69.1")).status).toBe(201);
    expect((await post(one, "81.2.69.2")).status).toBe(201);
    const perKey = await post(one, "81.2.69.3");
    expect(perKey.status).toBe(409);
    expect(await perKey.json()).toMatchObject({
      error: "limit_reached",
      message: expect.stringContaining("RISKCHECK_MAX_OVERRIDE_LINES_PER_KEY"),
    });
    expect((await post(one, "81.2.69.2", "a new reason")).status).toBe(201);
    expect((await post(two, "81.2.69.3")).status).toBe(201);
    const total = await post(two, "81.2.69.4");
    expect(total.status).toBe(409);
    expect(((await total.json()) as { message: string }).message).toContain("RISKCHECK_MAX_OVERRIDE_LINES");
    expect((await t.stores.ipOverrides.list()).map((l) => l.target)).toEqual(["81.2.69.1", "81.2.69.2", "81.2.69.3"]);
    const refusals = (
      await t.stores.audit.read({ action: "ip_override.added" }, { order: "oldest_first", limit: 100 })
    ).filter((e) => e.outcome === "failed");
    expect(refusals.map((e) => e.target)).toEqual(["81.2.69.3", "81.2.69.4"]);
  });

  test("a line posted again as it is stays as it was (200, its date and author kept), and writes no event", async () => {
    const t = await setup(backend);
    const body = { kind: "ip", target: "81.2.69.0/24", action: "deny", reason: "ticket 4711" };
    const first = await t.call("POST", "/v1/overrides", body);
    expect(first.status).toBe(201);
    const events = async () =>
      (await t.stores.audit.read({ action: "ip_override" }, { order: "oldest_first", limit: 100 })).length;
    const before = await events();
    t.clock.now += 60_000;
    const again = await t.call("POST", "/v1/overrides", body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await events()).toBe(before);
  });

  test("a range broader than /8 (/16 for IPv6) needs force, recorded as such; special-purpose space is refused whatever the force", async () => {
    const t = await setup(backend);
    const everything = { kind: "ip", target: "0.0.0.0/0", action: "allow", reason: "oops" };
    const broad = await t.call("POST", "/v1/overrides", everything);
    expect([broad.status, broad.body.error]).toEqual([400, "too_broad"]);
    expect(broad.body.message).toContain('insist with "force": true');
    expect((await t.call("POST", "/v1/overrides", { ...everything, target: "2a00::/12" })).body.error).toBe(
      "too_broad",
    );
    expect((await t.call("POST", "/v1/overrides", { ...everything, target: "81.0.0.0/8" })).status).toBe(201);
    for (const target of ["10.0.0.0/8", "192.168.1.1", "198.51.100.0/24", "fd00::/8", "224.0.0.0/4"]) {
      const refused = await t.call("POST", "/v1/overrides", { ...everything, target, force: true });
      expect([target, refused.status, refused.body.error]).toEqual([target, 400, "special_purpose"]);
    }
    expect((await t.call("POST", "/v1/overrides", { ...everything, force: "yes" })).body.error).toBe("invalid_body");
    expect((await t.call("POST", "/v1/overrides", { ...everything, force: true })).status).toBe(201);
    const [event] = await t.stores.audit.read({ target: "0.0.0.0/0" }, { order: "newest_first", limit: 1 });
    expect(event).toMatchObject({
      action: "ip_override.added",
      outcome: "succeeded",
      detail: "forced: a range broader than /8",
    });
    // The forced /0 is a default: an AS line, and any narrower range, decide before it.
    expect(
      (await t.call("POST", "/v1/overrides", { kind: "ip", target: "AS15169", action: "deny", reason: "r" })).status,
    ).toBe(201);
    expect(await t.level("8.8.8.8")).toBe("bad");
    expect(await t.level("1.1.1.1")).toBe("ok");
  });
  test("a flood of acts that change nothing is bounded in the log: 30 a minute one by one, the rest counted", async () => {
    const t = await setup(backend);
    const log = () => t.stores.audit.read({ action: "ip_override" }, { order: "oldest_first", limit: 1000 });
    for (let i = 0; i < 40; i++) expect((await t.call("DELETE", `/v1/overrides/ip:81.2.69.${i}`)).status).toBe(404);
    const body = { kind: "ip", target: "81.2.69.0/24", action: "deny", reason: "ticket 4711" };
    for (let i = 0; i < 20; i++) expect((await t.call("POST", "/v1/overrides", body)).status).toBe(i === 0 ? 201 : 200);
    const events = await log();
    expect(events.filter((e) => e.outcome === "failed")).toHaveLength(30);
    expect(events.filter((e) => e.outcome === "succeeded")).toHaveLength(1);
    expect(events.at(-1)?.detail).toBe(
      "before it, 10 more failed act(s) by 1 actor(s) were counted, not recorded one by one (over 30 a minute)",
    );
    t.clock.now += 60_000;
    expect((await t.call("DELETE", "/v1/overrides/ip:81.2.70.1")).status).toBe(404);
    expect((await log()).at(-1)).toMatchObject({
      outcome: "failed",
      target: "81.2.70.1",
      detail: "there was no line for it",
    });
  });
});
