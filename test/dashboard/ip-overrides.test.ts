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
    expect((await t.browser.get("/dashboard/ip")).body).toContain("expired 2026-01-31 (the day included)");
    expect(await t.level("8.8.8.8")).toBe("informative");
  });

  test("the lines come 50 a page, in target order, filtered by answer and by the start of the target", async () => {
    const t = await signedIn();
    const targets = Array.from({ length: 120 }, (_, i) => `81.2.${60 + Math.floor(i / 100)}.${i % 100}`);
    for (const [i, target] of targets.entries())
      await t.stores.ipOverrides.put({
        target,
        action: i % 3 === 0 ? "deny" : "allow",
        reason: "r",
        author: "ops",
        created: "2026-11-23T00:00:00.000Z",
        until: null,
      });
    const shown = (body: string) => [...body.matchAll(/data-target="([^"]+)"/g)].map((m) => m[1]);
    const seen: string[] = [];
    let path: string | null = "/dashboard/ip";
    while (path !== null) {
      const { body } = await t.browser.get(path);
      expect(shown(body).length).toBeLessThanOrEqual(50);
      seen.push(...shown(body));
      path = /<a href="([^"]+)" rel="next">/.exec(body)?.[1]?.replaceAll("&amp;", "&") ?? null;
    }
    expect(seen).toEqual([...targets].sort());
    const denied = shown((await t.browser.get("/dashboard/ip?action=deny&target=81.2.61.")).body);
    expect(denied).toEqual(["81.2.61.11", "81.2.61.14", "81.2.61.17", "81.2.61.2", "81.2.61.5", "81.2.61.8"]);
    expect((await t.browser.get("/dashboard/ip?action=maybe")).res.status).toBe(400);
  });

  test("a range broader than /8 is added only with “even broader” ticked, through the confirmation; private space never", async () => {
    const t = await signedIn();
    const line = { csrf: t.csrf, action: "allow", target: "0.0.0.0/0", reason: "a drill", until: "", checked: "" };
    const refused = await t.browser.post("/dashboard/ip", line);
    expect(refused.res.status).toBe(400);
    expect(refused.body).toContain("tick “even broader than /8” to insist");
    const confirm = await t.browser.post("/dashboard/ip", { ...line, force: "yes" });
    expect(confirm.body).toContain('<input type="hidden" name="force" value="yes">');
    const added = await t.browser.post("/dashboard/ip", { ...line, force: "yes", confirm: "yes" });
    expect(added.res.status).toBe(303);
    expect((await t.stores.ipOverrides.find("0.0.0.0/0"))?.action).toBe("allow");
    const [event] = await t.stores.audit.read({ target: "0.0.0.0/0" }, { order: "newest_first", limit: 1 });
    expect(event.detail).toBe("forced: a range broader than /8");
    const lan = await t.browser.post("/dashboard/ip", { ...line, target: "10.0.0.0/8", force: "yes", confirm: "yes" });
    expect(lan.res.status).toBe(400);
    expect(lan.body).toContain("lies in special-purpose space (private use)");
  });

  test("a form whose database fails gets a page that says so and when to try again, never a 500", async () => {
    const t = await signedIn();
    const stores = t.stores;
    Object.assign(stores, {
      transaction: () =>
        Promise.reject(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL", errno: 13 })),
    });
    const res = await t.browser.post("/dashboard/ip", {
      csrf: t.csrf,
      action: "deny",
      target: "81.2.69.0/24",
      reason: "r",
      until: "",
      checked: "",
      confirm: "yes",
    });
    expect(res.res.status).toBe(503);
    expect(res.res.headers.get("retry-after")).toBe("30");
    expect(res.res.headers.get("content-type")).toContain("text/html");
    expect(res.body).toContain("The database is out of disk space: nothing of this request was changed");
  });
});
