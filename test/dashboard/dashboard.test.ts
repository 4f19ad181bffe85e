import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { setAdminPassword } from "../../src/dashboard/admin-password.ts";
import { DashboardClient, csrfOf } from "../support/dashboard-client.ts";
import { createTestApp } from "../support/test-app.ts";
import { DASHBOARD_PASSWORD as PASSWORD, signedInDashboard } from "../support/signed-in-dashboard.ts";
import { scaled } from "../support/slowness.ts";

// Each sign-in hashes a password (memory-hard by design): six of them take seconds on a loaded machine.
setDefaultTimeout(scaled(20_000));

async function signedIn(options: Parameters<typeof createTestApp>[0] = {}) {
  const t = await signedInDashboard(options);
  return { ...t, csrf: csrfOf((await t.browser.get("/dashboard")).body) };
}

describe("without a password", () => {
  test("the page says how to set one and no sign-in is accepted", async () => {
    const t = await createTestApp();
    const browser = new DashboardClient((r) => t.handle(r));
    const { res, body } = await browser.get("/dashboard");
    expect(res.status).toBe(200);
    expect(body).toContain("admin set-password");
    expect(body).toContain("RISKCHECK_ADMIN_PASSWORD");
    expect(body).not.toContain('name="password"');
    const attempt = await browser.post("/dashboard/sign-in", { csrf: "x", password: "" });
    expect(attempt.res.status).toBe(403);
  });

  test("a password stored by set-password takes effect without a restart", async () => {
    const t = await createTestApp();
    await setAdminPassword(t.stores.adminPassword, PASSWORD);
    const browser = new DashboardClient((r) => t.handle(r));
    expect((await browser.signIn(PASSWORD)).status).toBe(303);
    expect(browser.cookies.has("rc_session")).toBe(true);
  });
});

describe("sign-in", () => {
  test("sets an HttpOnly, SameSite=Strict session cookie scoped to the dashboard", async () => {
    const t = await createTestApp({ adminPassword: PASSWORD });
    const browser = new DashboardClient((r) => t.handle(r));
    const { body } = await browser.get("/dashboard");
    const { res } = await browser.post("/dashboard/sign-in", { csrf: csrfOf(body), password: PASSWORD });
    const session = res.headers.getSetCookie().find((c) => c.startsWith("rc_session="))!;
    expect(session).toContain("HttpOnly");
    expect(session).toContain("SameSite=Strict");
    expect(session).toContain("Path=/dashboard");
    expect(session).not.toContain("Secure");
  });

  test("the cookie is Secure when the client came over TLS", async () => {
    const t = await createTestApp({ adminPassword: PASSWORD });
    t.client.https = true;
    const browser = new DashboardClient((r) => t.handle(r));
    const { body } = await browser.get("/dashboard");
    const { res } = await browser.post("/dashboard/sign-in", { csrf: csrfOf(body), password: PASSWORD });
    expect(res.headers.getSetCookie().find((c) => c.startsWith("rc_session="))).toContain("Secure");
  });

  test("a wrong password is refused, and repeated failures lock the address out", async () => {
    const t = await createTestApp({ adminPassword: PASSWORD });
    const browser = new DashboardClient((r) => t.handle(r));
    for (let i = 0; i < 5; i++) expect((await browser.signIn("wrong password!")).status).toBe(401);
    const locked = await browser.signIn(PASSWORD);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(browser.cookies.has("rc_session")).toBe(false);

    t.client.address = "198.51.100.9"; // another client is not locked out
    expect((await browser.signIn(PASSWORD)).status).toBe(303);
  });

  test("the lock-out ends after its time", async () => {
    const t = await createTestApp({ adminPassword: PASSWORD });
    const browser = new DashboardClient((r) => t.handle(r));
    for (let i = 0; i < 5; i++) await browser.signIn("wrong password!");
    t.clock.now += 61_000;
    expect((await browser.signIn(PASSWORD)).status).toBe(303);
  });

  test("a sign-in without the form's token is refused (login CSRF)", async () => {
    const t = await createTestApp({ adminPassword: PASSWORD });
    const browser = new DashboardClient((r) => t.handle(r));
    await browser.get("/dashboard");
    expect((await browser.post("/dashboard/sign-in", { csrf: "forged", password: PASSWORD })).res.status).toBe(403);
    expect(browser.cookies.has("rc_session")).toBe(false);
  });

  test("sessions expire server-side", async () => {
    const { browser, clock } = await signedIn();
    clock.now += 13 * 3600_000;
    const { body } = await browser.get("/dashboard");
    expect(body).toContain('name="password"');
  });

  test("sign-out ends the session", async () => {
    const { browser, csrf } = await signedIn();
    const cookie = browser.cookies.get("rc_session")!;
    expect((await browser.post("/dashboard/sign-out", { csrf })).res.status).toBe(303);
    browser.cookies.set("rc_session", cookie); // a stolen copy of the cookie is dead too
    expect((await browser.get("/dashboard")).body).toContain('name="password"');
  });
});

describe("keys in the dashboard", () => {
  test("create shows the secret once; no later page contains it", async () => {
    const { browser, csrf, request } = await signedIn();
    const created = await browser.post("/dashboard/keys", { csrf, name: "checkout" });
    expect(created.res.status).toBe(200);
    expect(created.res.headers.get("cache-control")).toBe("no-store");
    const secret = created.body.match(/<code id="new-key">(rk_[A-Za-z0-9_-]{43})<\/code>/)![1];
    expect((await request("/v1/check?email=a@gmail.com", { key: secret })).status).toBe(200);

    const list = await browser.get("/dashboard");
    expect(list.body).toContain("checkout");
    expect(list.body).toContain(secret.slice(0, 9));
    expect(list.body).not.toContain(secret);
    const id = list.body.match(/data-key-id="([^"]+)"/)![1];
    expect((await browser.get(`/dashboard/keys/${id}/revoke`)).body).not.toContain(secret);
  });

  test("revoke needs the confirmation and takes effect on the next API request", async () => {
    const { browser, csrf, request, newKey } = await signedIn();
    const { key, secret } = await newKey("legacy");
    const confirm = await browser.get(`/dashboard/keys/${key.id}/revoke`);
    expect(confirm.body).toContain("Yes, revoke this key");
    expect((await browser.post(`/dashboard/keys/${key.id}/revoke`, { csrf })).res.status).toBe(303);
    expect((await request("/v1/check?email=a@gmail.com", { key: secret })).status).toBe(200);

    expect(
      (await browser.post(`/dashboard/keys/${key.id}/revoke`, { csrf, confirm: "yes" })).res.headers.get("location"),
    ).toBe("/dashboard?done=revoked");
    const refused = await request("/v1/check?email=a@gmail.com", { key: secret });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe("API key revoked");

    const page = (await browser.get("/dashboard?done=revoked")).body;
    expect(page).toMatch(
      /<tr class="revoked" data-key-id="[^"]+">\s*<td data-label="Name" class="name"><a href="\/dashboard\/keys\/[^"]+">legacy<\/a><\/td>/,
    );
    expect(page).toContain('revoked <span class="muted note">2026-11-23 12:00 UTC</span>');
  });

  test.each([
    ["a missing token", {}],
    ["a wrong token", { csrf: "x".repeat(43) }],
  ])("state changes with %s are refused (CSRF)", async (_, extra) => {
    const { browser, keys, newKey } = await signedIn();
    const { key } = await newKey("victim");
    expect((await browser.post("/dashboard/keys", { name: "evil", ...extra })).res.status).toBe(403);
    expect((await browser.post(`/dashboard/keys/${key.id}/revoke`, { confirm: "yes", ...extra })).res.status).toBe(403);
    expect((await browser.post("/dashboard/sign-out", { ...extra })).res.status).toBe(403);
    expect((await keys.list()).map((k) => [k.name, k.revokedAt])).toEqual([["victim", null]]);
  });

  test("a cross-site request is refused even with the right token", async () => {
    const { browser, csrf, keys } = await signedIn();
    expect(
      (await browser.post("/dashboard/keys", { csrf, name: "evil" }, { "sec-fetch-site": "cross-site" })).res.status,
    ).toBe(403);
    expect(await keys.list()).toHaveLength(0);
  });

  test("a key name is escaped everywhere", async () => {
    const { browser, csrf } = await signedIn();
    const name = `<script>alert("x")</script><img src=x onerror=alert(1)>'"&`;
    const created = await browser.post("/dashboard/keys", { csrf, name });
    const list = await browser.get("/dashboard");
    const id = list.body.match(/data-key-id="([^"]+)"/)![1];
    const confirm = await browser.get(`/dashboard/keys/${id}/revoke`);
    for (const body of [created.body, list.body, confirm.body]) {
      expect(body).not.toContain("<script>alert");
      expect(body).not.toContain("<img src=x");
      expect(body).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    }
  });

  test("names are trimmed and length-limited", async () => {
    const { browser, csrf, keys } = await signedIn();
    expect((await browser.post("/dashboard/keys", { csrf, name: "   " })).res.status).toBe(400);
    expect((await browser.post("/dashboard/keys", { csrf, name: "x".repeat(101) })).res.status).toBe(400);
    expect((await browser.post("/dashboard/keys", { csrf, name: "  billing  " })).res.status).toBe(200);
    expect((await keys.list()).map((k) => k.name)).toEqual(["billing"]);
  });

  test("usage per key appears with its 30-day chart", async () => {
    const { browser, request, newKey } = await signedIn();
    const { secret } = await newKey("busy");
    for (let i = 0; i < 3; i++) await request("/v1/check?email=a@gmail.com", { key: secret });
    const { body } = await browser.get("/dashboard");
    expect(body).toContain('<td data-label="This month (email / IP)" class="num">3 / 0</td>');
  });

  test("a key's page: its facts, 30 days by outcome with axes, legend and numbers", async () => {
    const { browser, request, newKey, clock } = await signedIn({ ratePerMinute: 2, rateBurst: 2 });
    const { key, secret } = await newKey("busy");
    for (let i = 0; i < 3; i++) await request("/v1/check?email=a@gmail.com", { key: secret });
    await request("/v1/check?email=nope", { key: secret });
    clock.now += 12 * 3_600_000 + 120_000; // 00:02 the next day (UTC): a new session
    await request("/v1/check?email=a@gmail.com", { key: secret });
    expect(await browser.signIn(PASSWORD)).toMatchObject({ status: 303 });
    const { res, body } = await browser.get(`/dashboard/keys/${key.id}`);
    expect(res.status).toBe(200);
    expect(body).toContain('Key “busy” <span class="status-active">active</span>');
    expect(body).toMatch(/Last used<\/dt><dd>2026-11-24 00:02 UTC from <code>203\.0\.113\.7<\/code>/);
    expect(body.match(/<svg class="outcome-chart"/g)).toHaveLength(1);
    // Two answered and one rate-limited on the 23rd (a burst of 2), then one answered on the 24th.
    expect(body).toContain(
      "Nov 23: answered 2, refused (invalid input) 0, rate-limited 2, over quota 0, forbidden (network) 0; reports accepted 0",
    );
    expect(body).toContain("Answered: <strong>3</strong>");
    expect(body).toContain("Rate-limited: <strong>2</strong>");
    expect(body).toContain('<text class="tick" x="58" y="16.0" text-anchor="end">4</text>');
    expect(body).toContain(">Nov 24</text>");
    expect(body).toContain('<tr><td class="num">2026-11-24</td><td class="num">1</td>');
    // The 28 days without a request are one row of the table, not 28 rows of zeros.
    const rows = [...body.matchAll(/<tr( class="quiet")?><td class="num">([^<]+)<\/td>/g)].map((m) => m[2]);
    expect(rows).toEqual(["2026-11-24", "2026-11-23", "2026-10-26 – 2026-11-22"]);
    // The sections stay one click away, and what each permission allows is said beside its box.
    expect(body).toContain(
      '<nav class="sections" aria-label="Sections"><strong><a href="/dashboard">API keys</a></strong>',
    );
    expect(body).toContain('<a href="/dashboard/audit">Audit log</a></nav>');
    expect(body).toMatch(
      /value="manage"> manage override lines \(\/v1\/overrides\)<span class="muted help">[^<]*every key/,
    );
    expect((await browser.get("/dashboard/keys/key_nope")).res.status).toBe(404);
  });

  test("a key's settings are changed from its page and apply to the next request; a bad value changes nothing", async () => {
    const { browser, csrf, request, newKey, keys, client, clock } = await signedIn();
    const { key, secret } = await newKey("shop");
    await newKey("other");
    const form = {
      csrf,
      name: "shop-eu",
      rate: "",
      quota: "250",
      "permissions-shown": "1",
      permission: "check",
      expires: "2027-01-31",
      "allow-from": "10.0.0.0/8",
    };
    const saved = await browser.post(`/dashboard/keys/${key.id}`, form);
    expect(saved.res.headers.get("location")).toBe(`/dashboard/keys/${key.id}?done=updated`);
    expect(await keys.find(key.id)).toMatchObject({
      name: "shop-eu",
      ipQuotaPerMonth: 250,
      expiresAt: "2027-01-31T00:00:00.000Z",
      allowedNetworks: ["10.0.0.0/8"],
    });
    const refused = await request("/v1/check?email=a@gmail.com", { key: secret });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toContain("203.0.113.7");
    client.address = "10.1.2.3";
    expect((await request("/v1/check?email=a@gmail.com", { key: secret })).status).toBe(200);
    const page = (await browser.get(`/dashboard/keys/${key.id}?done=updated`)).body;
    expect(page).toContain("The key was changed");
    // Shown as every date of the pages is, and kept to the millisecond when saved unchanged.
    expect(page).toContain('value="2027-01-31 00:00 UTC"');
    expect(page).toContain("<legend>Permissions</legend>");
    clock.now += 12_345; // an expiry that is not a whole minute
    await browser.post(`/dashboard/keys/${key.id}`, { ...form, expires: "30d" });
    const exact = (await keys.find(key.id))!.expiresAt!;
    expect(exact).not.toMatch(/:00\.000Z$/);
    const shown = (await browser.get(`/dashboard/keys/${key.id}`)).body.match(
      /name="expires" type="text" value="([^"]+)"/,
    )![1]!;
    expect(shown).toBe(`${exact.slice(0, 10)} ${exact.slice(11, 16)} UTC`);
    await browser.post(`/dashboard/keys/${key.id}`, { ...form, expires: shown });
    expect((await keys.find(key.id))!.expiresAt).toBe(exact);
    for (const [change, message] of [
      [{ name: "other" }, "an active key is already named &quot;other&quot;"],
      [{ quota: "lots" }, "IP checks per month must be empty"],
      [{ expires: "yesterday" }, "is not an expiry"],
      [{ "allow-from": "10.0.0.0/99" }, "is not an address or CIDR"],
      [{ "allow-from": "" }, "the text was empty"],
      [{ "allow-from": "10.0.0.1/8" }, "has host bits set: the network is 10.0.0.0/8"],
    ] as const) {
      const bad = await browser.post(`/dashboard/keys/${key.id}`, { ...form, ...change });
      expect(bad.res.status).toBe(400);
      expect(bad.body).toContain(message);
    }
    expect((await keys.find(key.id))?.name).toBe("shop-eu");
  });

  test("rotation from the key page: the new secret once, both work through the grace; no grace asks first", async () => {
    const { browser, csrf, request, newKey, clock, keys } = await signedIn();
    const { key, secret: first } = await newKey("rotating");
    const forever = await browser.post(`/dashboard/keys/${key.id}/rotate`, { csrf, grace: "999999d" });
    expect(forever.res.status).toBe(400);
    expect(forever.body).toContain("a grace is at most 30d");
    expect((await keys.find(key.id))?.previousSecretEndsAt).toBeNull();
    const rotated = await browser.post(`/dashboard/keys/${key.id}/rotate`, { csrf, grace: "1h" });
    expect(rotated.res.status).toBe(200);
    const second = rotated.body.match(/<code id="new-key">(rk_[^<]+)<\/code>/)![1];
    expect(rotated.body).toContain("The previous secret works until 2026-11-23 13:00 UTC.");
    for (const secret of [first, second])
      expect((await request("/v1/check?email=a@gmail.com", { key: secret })).status).toBe(200);
    expect((await browser.get(`/dashboard/keys/${key.id}`)).body).toContain(
      "in progress: the previous secret works until 2026-11-23 13:00 UTC",
    );
    expect((await browser.get("/dashboard")).body).toContain("rotating until 2026-11-23 13:00 UTC");
    clock.now += 3_600_000;
    expect((await request("/v1/check?email=a@gmail.com", { key: first })).status).toBe(401);

    const asked = await browser.post(`/dashboard/keys/${key.id}/rotate`, { csrf, grace: "0" });
    expect(asked.body).toContain("Yes, rotate now");
    expect((await request("/v1/check?email=a@gmail.com", { key: second })).status).toBe(200);
    const now = await browser.post(`/dashboard/keys/${key.id}/rotate`, { csrf, grace: "0", confirm: "yes" });
    const third = now.body.match(/<code id="new-key">(rk_[^<]+)<\/code>/)![1];
    expect(now.body).toContain("The previous secret no longer works.");
    expect((await request("/v1/check?email=a@gmail.com", { key: second })).status).toBe(401);
    expect((await request("/v1/check?email=a@gmail.com", { key: third })).status).toBe(200);
  });
});

describe("every dashboard response is hardened", () => {
  test.each(["/dashboard", "/dashboard/keys/nope/revoke"])("%s", async (path) => {
    const { browser } = await signedIn();
    const { res } = await browser.get(path);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });

  test("pages carry no inline script or style", async () => {
    const { browser } = await signedIn();
    const { body } = await browser.get("/dashboard");
    expect(body).not.toMatch(/<script>|<style|style="|onclick=/);
  });
});

describe("the data being served", () => {
  test("the keys page shows the same warnings as /healthz", async () => {
    const { browser, request } = await signedIn();
    const health = (await (await request("/healthz")).json()) as { warnings: string[] };
    expect(health.warnings.length).toBeGreaterThan(0);
    const { body } = await browser.get("/dashboard");
    expect(body).toContain("About the data being served");
    for (const warning of health.warnings) expect(body).toContain(Bun.escapeHTML(warning));
  });
});
