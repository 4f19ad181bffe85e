import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { DashboardClient, csrfOf } from "../support/dashboard-client.ts";
import { createTestApp } from "../support/test-app.ts";
import { parseIpAddress } from "../../src/ip/address/parse.ts";

setDefaultTimeout(30_000);

const PASSWORD = "correct horse battery staple";

async function signedIn() {
  const t = await createTestApp({ adminPassword: PASSWORD });
  const browser = new DashboardClient(t.handle);
  expect((await browser.signIn(PASSWORD)).status).toBe(303);
  return { ...t, browser };
}

describe("dashboard: permissions and reported addresses", () => {
  test("a key is created with the permissions ticked, shown in the table; none ticked is refused", async () => {
    const t = await signedIn();
    const { body } = await t.browser.get("/dashboard");
    expect(body).toContain('name="permission" value="report"');
    const created = await t.browser.post("/dashboard/keys", { csrf: csrfOf(body), name: "waf", "permissions-shown": "1", permission: "report" });
    expect(created.res.status).toBe(200);
    expect((await t.keys.list()).map((k) => [k.name, k.permissions])).toEqual([["waf", ["report"]]]);
    const none = await t.browser.post("/dashboard/keys", { csrf: csrfOf(body), name: "nothing", "permissions-shown": "1" });
    expect(none.res.status).toBe(400);
    expect(none.body).toContain("at least one permission");
    const table = (await t.browser.get("/dashboard")).body;
    expect(table).toContain("<th>Permissions</th>");
    expect(table).toMatch(/data-label="Permissions">report</);
  });

  test("lists the most-reported addresses with who reported them, and deletes one key's reports or all", async () => {
    const t = await signedIn();
    const reporters = [];
    for (const name of ["waf", "signup <farm> watch"]) reporters.push(await t.newKey(name, { permissions: ["report"] }));
    const post = (secret: string, body: unknown) => t.request("/v1/reports", { key: secret, method: "POST", body: JSON.stringify(body) });
    await post(reporters[0].secret, { reports: [{ ip: "81.2.69.142", category: "bot" }, { ip: "89.160.20.112", category: "attack" }] });
    await post(reporters[1].secret, { ip: "81.2.69.142", category: "probe" });
    const { body } = await t.browser.get("/dashboard/reports");
    const order = [...body.matchAll(/data-ip="([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual(["81.2.69.142", "89.160.20.112"]);
    expect(body).toContain("signup &lt;farm&gt; watch: probe");
    expect(body).toContain("waf: bot");

    const asked = await t.browser.post("/dashboard/reports/delete", { csrf: csrfOf(body), ip: "81.2.69.142", key: reporters[1].key.id });
    expect(asked.res.status).toBe(200);
    expect(asked.body).toContain("Delete the reports of “signup &lt;farm&gt; watch” about <code>81.2.69.142</code>?");
    expect((await t.stores.reports.list({})).length).toBe(3);
    const askedAll = await t.browser.post("/dashboard/reports/delete", { csrf: csrfOf(body), ip: "81.2.69.142" });
    expect(askedAll.body).toContain("Delete every report about <code>81.2.69.142</code>?");
    expect((await t.stores.reports.list({})).length).toBe(3);
    const one = await t.browser.post("/dashboard/reports/delete", { csrf: csrfOf(body), ip: "81.2.69.142", key: reporters[1].key.id, confirm: "yes" });
    expect(one.res.status).toBe(303);
    expect(one.res.headers.get("location")).toBe("/dashboard/reports?deleted=1");
    expect(t.deps.localReports.contributionOf(parseIpAddress("81.2.69.142")!)?.counters).toEqual({ bot: 1, probe: 0, rate: 0, attack: 0, crawler: 0 });
    await t.browser.post("/dashboard/reports/delete", { csrf: csrfOf(body), ip: "81.2.69.142", confirm: "yes" });
    expect(t.deps.localReports.contributionOf(parseIpAddress("81.2.69.142")!)).toBeNull();
    expect((await t.stores.reports.list({})).map((r) => r.ip)).toEqual(["89.160.20.112"]);

    const forged = await t.browser.post("/dashboard/reports/delete", { csrf: "forged", ip: "89.160.20.112" });
    expect(forged.res.status).toBe(403);
    const bad = await t.browser.post("/dashboard/reports/delete", { csrf: csrfOf(body), ip: "not an address" });
    expect(bad.res.status).toBe(400);
    expect((await t.stores.reports.list({})).length).toBe(1);
    expect((await new DashboardClient(t.handle).get("/dashboard/reports")).res.status).toBe(303);
  });
});
