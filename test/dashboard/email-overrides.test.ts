import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { DashboardClient, csrfOf } from "../support/dashboard-client.ts";
import { signedInDashboard } from "../support/signed-in-dashboard.ts";
import { STORE_BACKENDS } from "../support/store-backends.ts";
import type { Stores } from "../../src/stores/stores.ts";
import { scaled } from "../support/slowness.ts";

// Each test signs in: an argon2id check of ~100 ms of a core, more on a loaded machine.
setDefaultTimeout(scaled(20_000));

async function signedIn(stores?: Stores) {
  const t = await signedInDashboard({ ratePerMinute: 0, stores });
  const { browser } = t;
  const { body } = await browser.get("/dashboard/email");
  const key = (await t.newKey()).secret;
  const check = async (address: string) =>
    (await (await t.request(`/v1/check?email=${encodeURIComponent(address)}&explain=1`, { key })).json()) as {
      is_disposable: boolean;
      reasons: Record<string, unknown>;
    };
  return { ...t, browser, csrf: csrfOf(body), check };
}

describe("the email overrides page", () => {
  test("is reached from the keys page, and asks a signed-out visitor to sign in", async () => {
    const t = await signedIn();
    expect((await t.browser.get("/dashboard")).body).toContain('<a href="/dashboard/email">Email overrides</a>');
    const stranger = new DashboardClient((r) => t.handle(r));
    const { body } = await stranger.get("/dashboard/email");
    expect(body).toContain('name="password"');
    expect(body).not.toContain("Override lines");
  });

  test("adds a line that applies at once, with its reason in explain, and removes it", async () => {
    const t = await signedIn();
    expect((await t.check("someone@mailinator.com")).is_disposable).toBe(true);
    const added = await t.browser.post("/dashboard/email", {
      csrf: t.csrf,
      domain: "Mailinator.com",
      action: "allow",
      reason: "a partner's test inboxes",
      until: "2099-12-31",
    });
    expect(added.res.status).toBe(303);
    expect(added.res.headers.get("location")).toBe("/dashboard/email?done=added");
    const answer = await t.check("someone@mailinator.com");
    expect(answer.is_disposable).toBe(false);
    expect(answer.reasons).toMatchObject({
      rule: "allowlisted",
      override: {
        domain: "mailinator.com",
        reason: "a partner's test inboxes",
        author: "dashboard",
        until: "2100-01-01T00:00:00.000Z",
      },
    });
    const { body } = await t.browser.get("/dashboard/email?done=added");
    expect(body).toContain("The line was added");
    expect(body).toContain('data-domain="mailinator.com"');
    expect(body).toContain("a partner&#39;s test inboxes");
    const removed = await t.browser.post("/dashboard/email/remove", { csrf: t.csrf, domain: "mailinator.com" });
    expect(removed.res.headers.get("location")).toBe("/dashboard/email?done=removed");
    expect((await t.check("someone@mailinator.com")).is_disposable).toBe(true);
    expect(await t.stores.emailOverrides.list()).toEqual([]);
  });

  test.each([
    [{ domain: "not a domain", action: "deny", reason: "r" }, "is not a domain name"],
    [{ domain: "example-corp.com", action: "deny", reason: " " }, "say why with a reason"],
    [{ domain: "example-corp.com", action: "block", reason: "r" }, "Choose allow or deny"],
    [{ domain: "example-corp.com", action: "deny", reason: "r", until: "2001-01-01" }, "has already passed"],
    [{ domain: "example-corp.com", action: "deny", reason: "r", until: "tomorrow" }, "is not a date"],
    [{ domain: "example-corp.com", action: "deny", reason: "r", until: "2099-02-30" }, "is not a date"],
    [
      { domain: "co.uk", action: "deny", reason: "spam wave" },
      "co.uk is a public suffix: a line there would make every domain under it disposable",
    ],
    [
      { domain: "example-corp.com", action: "deny", reason: "nul \u0000 inside" },
      "without control or invisible formatting characters",
    ],
  ])("%j is refused with 400 and a reason, and stores nothing", async (form, message) => {
    const t = await signedIn();
    const { res, body } = await t.browser.post("/dashboard/email", { csrf: t.csrf, ...form });
    expect(res.status).toBe(400);
    expect(body).toContain(message);
    expect(await t.stores.emailOverrides.list()).toEqual([]);
  });

  test("a form without the CSRF token, or from another site, changes nothing", async () => {
    const t = await signedIn();
    expect(
      (await t.browser.post("/dashboard/email", { domain: "example-corp.com", action: "deny", reason: "r" })).res
        .status,
    ).toBe(403);
    expect(
      (
        await t.browser.post(
          "/dashboard/email",
          { csrf: t.csrf, domain: "example-corp.com", action: "deny", reason: "r" },
          { "sec-fetch-site": "cross-site" },
        )
      ).res.status,
    ).toBe(403);
    expect(await t.stores.emailOverrides.list()).toEqual([]);
  });

  test("an expired line is shown as expired and no longer applies", async () => {
    const t = await signedIn();
    await t.stores.emailOverrides.put({
      domain: "mailinator.com",
      action: "allow",
      reason: "old",
      author: "ops",
      created: "2026-01-01T00:00:00.000Z",
      until: "2026-02-01T00:00:00.000Z",
    });
    await t.emailOverrides.refresh();
    expect((await t.browser.get("/dashboard/email")).body).toContain("expired 2026-01-31 (the day included)");
    expect((await t.check("someone@mailinator.com")).is_disposable).toBe(true);
  });
});

describe.each(STORE_BACKENDS)("override lines on $name", (backend) => {
  test("a reason with %00 is refused with 400, never a 500; a public suffix is added only when insisted on", async () => {
    const t = await signedIn(await backend.fresh());
    try {
      const nul = await t.browser.post("/dashboard/email", {
        csrf: t.csrf,
        domain: "example-corp.com",
        action: "deny",
        reason: "ticket\u00004711",
      });
      expect(nul.res.status).toBe(400);
      expect(t.errors).toEqual([]);
      const forced = await t.browser.post("/dashboard/email", {
        csrf: t.csrf,
        domain: "co.uk",
        action: "deny",
        reason: "all of it, on purpose",
        force: "yes",
      });
      expect(forced.res.status).toBe(303);
      expect((await t.stores.emailOverrides.list()).map((l) => l.domain)).toEqual(["co.uk"]);
    } finally {
      await t.serving.release();
    }
  });
});
