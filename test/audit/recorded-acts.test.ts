import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { serverActor } from "../../src/audit/actors.ts";
import { pruneAuditLog } from "../../src/audit/audit-retention.ts";
import { AuditTrail } from "../../src/audit/audit-trail.ts";
import type { AuditEntry } from "../../src/audit/audit-event.ts";
import { OverrideExpiries } from "../../src/audit/override-expiries.ts";
import { OverrideWatch } from "../../src/email/override-watch.ts";
import { ipOverrideWatch } from "../../src/ip/overrides/ip-override-watch.ts";
import type { Stores } from "../../src/stores/stores.ts";
import { DashboardClient, csrfOf } from "../support/dashboard-client.ts";
import { POSTGRES_SETUP_TIMEOUT_MS, startTestPostgres } from "../support/postgres.ts";
import { STORE_BACKENDS } from "../support/store-backends.ts";
import { createTestApp } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";
import { eventually } from "../support/deadline.ts";

// Sign-ins hash passwords (memory-hard by design): seconds on a loaded two-core machine.
setDefaultTimeout(scaled(30_000));
beforeAll(startTestPostgres, POSTGRES_SETUP_TIMEOUT_MS);

const PASSWORD = "correct horse battery staple";
const SECRET_PATTERN = /rk_[A-Za-z0-9_-]{20,}/;

/** The log but for the schema's creation, which a new SQLite file records as it opens. */
async function events(stores: Stores): Promise<AuditEntry[]> {
  const all = await stores.audit.read({}, { order: "oldest_first", limit: 1_000 });
  return all.filter((e) => e.action !== "database.migrated");
}

describe.each(STORE_BACKENDS)("$name", (backend) => {
  test("the dashboard records every sign-in and act, by the session and its address; never a password, token or secret", async () => {
    const stores = await backend.fresh();
    const t = await createTestApp({ adminPassword: PASSWORD, stores });
    const browser = new DashboardClient((r) => t.handle(r));
    const wrong = "wrong password, tried once";
    for (let i = 0; i < 5; i++) expect((await browser.signIn(`${wrong} ${i}`)).status).toBe(401);
    expect((await browser.signIn(PASSWORD)).status).toBe(429);
    t.client.address = "198.51.100.9";
    expect((await browser.signIn(PASSWORD)).status).toBe(303);
    const sessionToken = browser.cookies.get("rc_session")!;
    const csrf = csrfOf((await browser.get("/dashboard")).body);
    const post = async (path: string, form: Record<string, string>) => {
      const { res, body } = await browser.post(path, { csrf, ...form });
      expect(res.status).toBeLessThan(400);
      return body;
    };
    const created = await post("/dashboard/keys", { name: "billing", "permissions-shown": "1", permission: "check" });
    const secret = SECRET_PATTERN.exec(created)![0];
    const key = (await t.keys.list())[0];
    await post(`/dashboard/keys/${key.id}`, {
      name: "billing-eu",
      rate: "60",
      quota: "",
      "permissions-shown": "1",
      permission: "check",
      expires: "",
      "allow-from": "any",
    });
    const rotated = SECRET_PATTERN.exec(await post(`/dashboard/keys/${key.id}/rotate`, { grace: "1h" }))![0];
    await post(`/dashboard/keys/${key.id}/revoke`, { confirm: "yes" });
    await post("/dashboard/email", { action: "deny", domain: "mailinator.example", reason: "throwaway", until: "" });
    await post("/dashboard/email/remove", { domain: "mailinator.example" });
    await post("/dashboard/ip", {
      action: "allow",
      target: "81.2.69.0/24",
      reason: "office",
      until: "",
      confirm: "yes",
    });
    await post("/dashboard/ip/remove", { target: "81.2.69.0/24" });
    await post("/dashboard/reports/delete", { ip: "192.0.2.1", confirm: "yes" });
    await post("/dashboard/sign-out", {});

    const log = await events(stores);
    expect(log.map((e) => `${e.action} ${e.outcome} ${e.channel}`)).toEqual([
      "admin_password.set succeeded server",
      ...Array(5).fill("sign_in.failed failed dashboard"),
      "sign_in.locked_out failed dashboard",
      "sign_in.succeeded succeeded dashboard",
      "key.created succeeded dashboard",
      "key.updated succeeded dashboard",
      "key.rotated succeeded dashboard",
      "key.revoked succeeded dashboard",
      "email_override.added succeeded dashboard",
      "email_override.removed succeeded dashboard",
      "ip_override.added succeeded dashboard",
      "ip_override.removed succeeded dashboard",
      "reports.deleted succeeded dashboard",
      "sign_out succeeded dashboard",
    ]);
    expect(log[0].actor).toMatch(/^serve on /);
    for (const failed of log.slice(1, 7)) expect(failed.actor).toBe("from 203.0.113.7");
    // One session from sign-in to sign-out, named by a digest of its token.
    const session = /^session ([0-9a-f]{8}) from 198\.51\.100\.9$/.exec(log[7].actor)![1];
    for (const e of log.slice(7)) expect(e.actor).toBe(`session ${session} from 198.51.100.9`);
    expect(log.find((e) => e.action === "key.updated")).toMatchObject({
      target: `${key.id} (billing-eu)`,
      change: { name: { before: "billing", after: "billing-eu" }, ratePerMinute: { before: null, after: 60 } },
    });
    expect(log.find((e) => e.action === "reports.deleted")).toMatchObject({
      target: "address 192.0.2.1",
      detail: "0 report(s)",
    });

    const text = JSON.stringify(log);
    for (const value of [PASSWORD, wrong, secret, rotated, sessionToken, csrf]) expect(text).not.toContain(value);
  });

  test("the admin API records a line added and removed by its key and address; the checks record nothing", async () => {
    const stores = await backend.fresh();
    const t = await createTestApp({ stores });
    const { key: manager, secret } = await t.newKey("ops-bot", { permissions: ["check", "manage"] });
    // PostgreSQL's instances learn of a new key by notification.
    await eventually(
      "the new key known",
      2_000,
      async () => (await t.request("/v1/overrides", { key: secret })).status !== 401,
      10,
    );
    const added = await t.request("/v1/overrides", {
      key: secret,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "email", target: "partner.example", action: "allow", reason: "our reseller" }),
    });
    expect(added.status).toBe(201);
    expect((await t.request("/v1/overrides/email:partner.example", { key: secret, method: "DELETE" })).status).toBe(
      204,
    );
    expect((await t.request("/v1/overrides/email:partner.example", { key: secret, method: "DELETE" })).status).toBe(
      404,
    );
    const before = await events(stores);
    expect(before.map((e) => `${e.action} ${e.outcome} ${e.channel} ${e.actor}`)).toEqual([
      `email_override.added succeeded api key ${manager.id} (ops-bot) from 203.0.113.7`,
      `email_override.removed succeeded api key ${manager.id} (ops-bot) from 203.0.113.7`,
      `email_override.removed failed api key ${manager.id} (ops-bot) from 203.0.113.7`,
    ]);
    expect(JSON.stringify(before)).not.toContain(secret);

    for (const path of ["/v1/check?email=a@mailinator.com", "/v1/ip-reputation-check?ip=81.2.69.142", "/v1/overrides"])
      expect((await t.request(path, { key: secret })).status).toBe(200);
    expect((await t.request("/v1/check?email=not-an-address", { key: secret })).status).toBe(400);
    expect(await events(stores)).toEqual(before);
  });

  test("an override's expiry is recorded once by the server, whichever instance sees it; retention prunes and records itself", async () => {
    const stores = await backend.fresh();
    const other = await backend.another();
    const nowMs = Date.UTC(2026, 10, 23, 12);
    await stores.ipOverrides.put({
      target: "203.0.113.0/24",
      action: "deny",
      reason: "attack wave",
      author: "ops",
      created: "2026-11-01T00:00:00.000Z",
      until: "2026-11-20T00:00:00.000Z",
    });
    await stores.emailOverrides.put({
      domain: "later.example",
      action: "allow",
      reason: "trial",
      author: "ops",
      created: "2026-11-01T00:00:00.000Z",
      until: "2026-12-01T00:00:00.000Z",
    });
    const expiries = async (s: Stores) => {
      const watches = {
        email: new OverrideWatch(
          s.emailOverrides,
          (line) => line.domain,
          () => nowMs,
        ),
        ip: ipOverrideWatch(s.ipOverrides, () => nowMs).watch,
      };
      await Promise.all([watches.email.refresh(), watches.ip.refresh()]);
      return new OverrideExpiries(
        watches,
        new AuditTrail(s, { now: () => nowMs, logError: (line) => expect(line).toBeUndefined() }).as(serverActor()),
        400 * 86_400_000,
      );
    };
    const [one, two] = [await expiries(stores), await expiries(other)];
    await Promise.all([one.check(nowMs), two.check(nowMs), one.check(nowMs)]);
    const expired = await events(stores);
    expect(expired.map((e) => `${e.action} ${e.target} ${e.channel}`)).toEqual([
      "ip_override.expired 203.0.113.0/24 server",
    ]);
    expect(expired[0].detail).toContain("in force until 2026-11-20T00:00:00.000Z");

    const lines: string[] = [];
    const trail = new AuditTrail(stores, {
      now: () => nowMs + 401 * 86_400_000,
      lines: (entry) => lines.push(JSON.stringify(entry)),
      logError: (line) => expect(line).toBeUndefined(),
    });
    expect(await pruneAuditLog(trail.as(serverActor()), 400 * 86_400_000, nowMs + 401 * 86_400_000)).toBe(1);
    const after = await events(stores);
    expect(after.map((e) => `${e.action} ${e.detail}`)).toEqual([
      `audit.pruned 1 event(s) from before ${new Date(nowMs + 86_400_000).toISOString()} (RISKCHECK_AUDIT_RETENTION)`,
    ]);
    expect(lines.map((line) => JSON.parse(line))).toEqual(after);
    expect(await pruneAuditLog(trail.as(serverActor()), 400 * 86_400_000, nowMs + 401 * 86_400_000)).toBe(0);
    expect(await events(stores)).toHaveLength(1);
  });
});
