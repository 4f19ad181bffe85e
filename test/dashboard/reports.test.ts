import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { DashboardClient, csrfOf } from "../support/dashboard-client.ts";
import { signedInDashboard } from "../support/signed-in-dashboard.ts";
import { parseIpAddress } from "../../src/ip/address/parse.ts";
import { scaled } from "../support/slowness.ts";

setDefaultTimeout(scaled(30_000));

describe("dashboard: permissions and reported addresses", () => {
  test("a key is created with the permissions ticked, shown in the table; none ticked is refused", async () => {
    const t = await signedInDashboard();
    const { body } = await t.browser.get("/dashboard");
    expect(body).toContain('name="permission" value="report"');
    const created = await t.browser.post("/dashboard/keys", {
      csrf: csrfOf(body),
      name: "waf",
      "permissions-shown": "1",
      permission: "report",
    });
    expect(created.res.status).toBe(200);
    expect((await t.keys.list()).map((k) => [k.name, k.permissions])).toEqual([["waf", ["report"]]]);
    const none = await t.browser.post("/dashboard/keys", {
      csrf: csrfOf(body),
      name: "nothing",
      "permissions-shown": "1",
    });
    expect(none.res.status).toBe(400);
    expect(none.body).toContain("at least one permission");
    const table = (await t.browser.get("/dashboard")).body;
    expect(table).toContain("<th>Permissions</th>");
    expect(table).toMatch(/data-label="Permissions">report</);
  });

  test("lists the most-reported addresses with who reported them, and deletes one key's reports or all", async () => {
    const t = await signedInDashboard();
    const reporters = [];
    for (const name of ["waf", "signup <farm> watch"])
      reporters.push(await t.newKey(name, { permissions: ["report"] }));
    const post = (secret: string, body: unknown) =>
      t.request("/v1/reports", { key: secret, method: "POST", body: JSON.stringify(body) });
    await post(reporters[0].secret, {
      reports: [
        { ip: "81.2.69.142", category: "bot" },
        { ip: "89.160.20.112", category: "attack" },
      ],
    });
    await post(reporters[1].secret, { ip: "81.2.69.142", category: "probe" });
    const { body } = await t.browser.get("/dashboard/reports");
    const order = [...body.matchAll(/data-ip="([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual(["81.2.69.142", "89.160.20.112"]);
    expect(body).toContain("signup &lt;farm&gt; watch: probe");
    expect(body).toContain("waf: bot");

    const asked = await t.browser.post("/dashboard/reports/delete", {
      csrf: csrfOf(body),
      ip: "81.2.69.142",
      key: reporters[1].key.id,
    });
    expect(asked.res.status).toBe(200);
    expect(asked.body).toContain("Delete the reports of “signup &lt;farm&gt; watch” about <code>81.2.69.142</code>?");
    expect((await t.stores.reports.list({})).length).toBe(3);
    const askedAll = await t.browser.post("/dashboard/reports/delete", { csrf: csrfOf(body), ip: "81.2.69.142" });
    expect(askedAll.body).toContain("Delete every report about <code>81.2.69.142</code>?");
    expect((await t.stores.reports.list({})).length).toBe(3);
    const one = await t.browser.post("/dashboard/reports/delete", {
      csrf: csrfOf(body),
      ip: "81.2.69.142",
      key: reporters[1].key.id,
      confirm: "yes",
    });
    expect(one.res.status).toBe(303);
    expect(one.res.headers.get("location")).toBe("/dashboard/reports?deleted=1");
    expect(t.deps.localReports.contributionOf(parseIpAddress("81.2.69.142")!)?.counters).toEqual({
      bot: 1,
      probe: 0,
      rate: 0,
      attack: 0,
      crawler: 0,
    });
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

  test("under each key, the comments of its newest reports: escaped, control characters shown, revoked keys' left out", async () => {
    const t = await signedInDashboard();
    const waf = await t.newKey("waf", { permissions: ["report"] });
    const gone = await t.newKey("gone", { permissions: ["report"] });
    const post = (secret: string, category: string, comment?: string) =>
      t.request("/v1/reports", {
        key: secret,
        method: "POST",
        body: JSON.stringify({ ip: "81.2.69.142", category, comment }),
      });
    await post(waf.secret, "bot", "oldest, not shown");
    await post(waf.secret, "probe");
    await post(waf.secret, "rate", "1,200 requests a minute");
    await post(waf.secret, "attack", "<script>alert(1)</script>");
    await post(waf.secret, "crawler", "evil\u202e\u001b[2Jtxt.exe\nnext");
    await post(gone.secret, "bot", "from a key revoked since");
    await t.keys.revoke(gone.key.id);
    const { body } = await t.browser.get("/dashboard/reports");
    const shown = [...body.matchAll(/<li><q>(.*?)<\/q> <span class="muted">(\w+), /g)].map((m) => [m[1], m[2]]);
    expect(shown).toEqual([
      ["evil\\u202e\\x1b[2Jtxt.exe\\nnext", "crawler"],
      ["&lt;script&gt;alert(1)&lt;/script&gt;", "attack"],
      ["1,200 requests a minute", "rate"],
    ]);
    expect(body).not.toContain("\u202e");
    expect(body).not.toContain("oldest, not shown");
    expect(body).not.toContain("from a key revoked since");
  });

  test("all of one key's reports are deleted after a confirmation page; the ranking is paginated, 50 a page", async () => {
    const t = await signedInDashboard();
    const rogue = await t.newKey("rogue", { permissions: ["report"] });
    const honest = await t.newKey("honest", { permissions: ["report"] });
    const post = (secret: string, body: unknown) =>
      t.request("/v1/reports", { key: secret, method: "POST", body: JSON.stringify(body) });
    const ips = Array.from({ length: 120 }, (_, i) => `89.160.${20 + (i >> 8)}.${(i & 255) + 1}`);
    expect((await post(rogue.secret, { reports: ips.map((ip) => ({ ip, category: "attack" })) })).status).toBe(200);
    await post(honest.secret, { ip: ips[119], category: "bot" });

    const first = await t.browser.get("/dashboard/reports");
    expect(first.body).toContain("Addresses 1–50 of 120");
    const rows = (body: string) => [...body.matchAll(/<tr data-ip="([^"]+)"/g)].map((m) => m[1]);
    expect(rows(first.body)[0]).toBe(ips[119]);
    expect(rows(first.body)).toHaveLength(50);
    expect(first.body).toContain('href="/dashboard/reports?page=2" rel="next"');
    const third = await t.browser.get("/dashboard/reports?page=3");
    expect(rows(third.body)).toHaveLength(20);
    expect(third.body).not.toContain('rel="next"');
    expect(
      new Set([
        ...rows(first.body),
        ...rows((await t.browser.get("/dashboard/reports?page=2")).body),
        ...rows(third.body),
      ]).size,
    ).toBe(120);

    const asked = await t.browser.post("/dashboard/reports/delete", { csrf: csrfOf(first.body), key: rogue.key.id });
    expect(asked.res.status).toBe(200);
    expect(asked.body).toContain("Delete all reports of “rogue”, on every address?");
    expect((await t.stores.reports.list({})).length).toBe(121);
    const done = await t.browser.post("/dashboard/reports/delete", {
      csrf: csrfOf(asked.body),
      key: rogue.key.id,
      confirm: "yes",
    });
    expect(done.res.status).toBe(303);
    expect(done.res.headers.get("location")).toBe("/dashboard/reports?deleted=120");
    expect((await t.stores.reports.list({})).map((r) => r.keyId)).toEqual([honest.key.id]);
    expect(t.deps.localReports.contributionOf(parseIpAddress(ips[0])!)).toBeNull();
    expect(t.deps.localReports.contributionOf(parseIpAddress(ips[119])!)?.counters.bot).toBe(1);
    const unknown = await t.browser.post("/dashboard/reports/delete", { csrf: csrfOf(first.body), key: "key_nope" });
    expect(unknown.res.status).toBe(400);
  });

  test("an unknown dashboard asset is the JSON 404", async () => {
    const t = await signedInDashboard();
    const res = await t.handle(new Request("http://riskcheck.test/dashboard/assets/nope"));
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ error: "not_found", message: expect.any(String) });
  });
});
