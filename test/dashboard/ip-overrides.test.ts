import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { DashboardClient, csrfOf } from "../support/dashboard-client.ts";
import { signedInDashboard } from "../support/signed-in-dashboard.ts";
import { scaled } from "../support/slowness.ts";

// Each test signs in: an argon2id check of ~100 ms of a core, more on a loaded machine.
setDefaultTimeout(scaled(20_000));

async function signedIn() {
  const t = await signedInDashboard({ ratePerMinute: 0 });
  const { browser } = t;
  const { body } = await browser.get("/dashboard/ip");
  const key = (await t.newKey()).secret;
  const level = async (ip: string) =>
    (
      (await (await t.request(`/v1/ip-reputation-check?ip=${ip}`, { key })).json()) as {
        reputation: { reputation: string };
      }
    ).reputation.reputation;
  return { ...t, browser, csrf: csrfOf(body), level };
}

describe("the IP overrides page", () => {
  test("is reached from the other pages, and sends a signed-out visitor to sign in", async () => {
    const t = await signedIn();
    for (const path of ["/dashboard", "/dashboard/email", "/dashboard/reports"])
      expect((await t.browser.get(path)).body).toContain('<a href="/dashboard/ip">IP overrides</a>');
    const stranger = new DashboardClient((r) => t.handle(r));
    const { res } = await stranger.get("/dashboard/ip?check=8.8.8.8");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard");
  });

  test("checking an address shows its explanation and offers its address, range and network", async () => {
    const t = await signedIn();
    const { body } = await t.browser.get("/dashboard/ip?check=8.8.8.8");
    expect(body).toContain('Verdict: <strong class="level-informative">informative</strong>, not risky');
    expect(body).toContain("AS15169 Google LLC");
    expect(body).toContain('value="8.8.8.8">Allow this address (8.8.8.8)…');
    expect(body).toContain('value="8.8.8.0/24">Allow this range (8.8.8.0/24)…');
    expect(body).toContain('value="AS15169">Allow this network (AS15169)…');
    expect((await t.browser.get("/dashboard/ip?check=2001:4860:4860::8888")).body).toContain(
      'value="2001:4860:4860::/48"',
    );
    expect((await t.browser.get("/dashboard/ip?check=10.0.0.1")).body).toContain("is not a public address");
    const odd = (await t.browser.get(`/dashboard/ip?check=${encodeURIComponent("<script>alert(1)</script>")}`)).body;
    expect(odd).toContain("“&lt;script&gt;alert(1)&lt;/script&gt;” is not an IP address");
    expect(odd).not.toContain("<script>alert(1)");
  });

  test("allow this range: a confirmation page first, then the line applies at once and the explanation names it", async () => {
    const t = await signedIn();
    const offered = {
      csrf: t.csrf,
      action: "allow",
      checked: "8.8.8.8",
      target: "8.8.8.0/24",
      reason: "our <partner>'s resolver",
      until: "",
    };
    const confirm = await t.browser.post("/dashboard/ip", offered);
    expect(confirm.res.status).toBe(200);
    expect(confirm.body).toContain("Allow <code>8.8.8.0/24</code>?");
    expect(confirm.body).toContain("our &lt;partner&gt;&#39;s resolver");
    expect(await t.stores.ipOverrides.list()).toEqual([]);
    const added = await t.browser.post("/dashboard/ip", { ...offered, confirm: "yes" });
    expect(added.res.status).toBe(303);
    expect(added.res.headers.get("location")).toBe("/dashboard/ip?done=added&check=8.8.8.8");
    expect(await t.level("8.8.8.8")).toBe("ok");
    const { body } = await t.browser.get("/dashboard/ip?done=added&check=8.8.8.8");
    expect(body).toContain("The line was added");
    expect(body).toContain(
      "Decided by the line <code>8.8.8.0/24</code>, never risky (allow): “our &lt;partner&gt;&#39;s resolver”, by dashboard, until removed.",
    );
    expect(body).toContain('data-target="8.8.8.0/24"');
    const removed = await t.browser.post("/dashboard/ip/remove", { csrf: t.csrf, target: "8.8.8.0/24" });
    expect(removed.res.headers.get("location")).toBe("/dashboard/ip?done=removed");
    expect(await t.level("8.8.8.8")).toBe("informative");
    expect(await t.stores.ipOverrides.list()).toEqual([]);
  });

  test.each([
    [{ target: "8.8.8.8/24", action: "deny", reason: "r" }, "host bits set: the range is 8.8.8.0/24"],
    [{ target: "not an address", action: "deny", reason: "r" }, "is not an IP address, a CIDR range or an AS number"],
    [{ target: "8.8.8.8", action: "deny", reason: " " }, "say why with a reason"],
    [{ target: "8.8.8.8", action: "block", reason: "r" }, "Choose allow or deny"],
    [{ target: "8.8.8.8", action: "deny", reason: "r", until: "2001-01-01" }, "has already passed"],
  ])("%j is refused with 400 and a reason, and stores nothing, confirmed or not", async (form, message) => {
    const t = await signedIn();
    for (const confirm of ["", "yes"]) {
      const { res, body } = await t.browser.post("/dashboard/ip", { csrf: t.csrf, ...form, confirm });
      expect(res.status).toBe(400);
      expect(body).toContain(message);
    }
    expect(await t.stores.ipOverrides.list()).toEqual([]);
  });

  test("a form without the CSRF token, or from another site, changes nothing", async () => {
    const t = await signedIn();
    const form = { target: "8.8.8.8", action: "deny", reason: "r", confirm: "yes" };
    expect((await t.browser.post("/dashboard/ip", form)).res.status).toBe(403);
    expect(
      (await t.browser.post("/dashboard/ip", { csrf: t.csrf, ...form }, { "sec-fetch-site": "cross-site" })).res.status,
    ).toBe(403);
    await t.stores.ipOverrides.put({
      target: "8.8.8.8",
      action: "deny",
      reason: "r",
      author: "ops",
      created: "2026-11-01T00:00:00.000Z",
      until: null,
    });
    expect((await t.browser.post("/dashboard/ip/remove", { target: "8.8.8.8" })).res.status).toBe(403);
    expect(await t.stores.ipOverrides.list()).toHaveLength(1);
  });

  test("an expired line is shown as expired and no longer applies", async () => {
    const t = await signedIn();
    await t.stores.ipOverrides.put({
      target: "AS15169",
      action: "deny",
      reason: "old",
      author: "ops",
      created: "2026-01-01T00:00:00.000Z",
      until: "2026-02-01T00:00:00.000Z",
    });
    await t.ipOverrides.refresh();
    expect((await t.browser.get("/dashboard/ip")).body).toContain("expired 2026-02-01 00:00 UTC");
    expect(await t.level("8.8.8.8")).toBe("informative");
  });
});
