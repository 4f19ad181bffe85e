import { expect, setDefaultTimeout, test } from "bun:test";
import { DashboardClient } from "../support/dashboard-client.ts";
import { createTestApp } from "../support/test-app.ts";
import { DASHBOARD_PASSWORD as PASSWORD, signedInDashboard } from "../support/signed-in-dashboard.ts";
import { scaled } from "../support/slowness.ts";

setDefaultTimeout(scaled(20_000));

const rows = (body: string) => [...body.matchAll(/<tr data-event-id="(\d+)"/g)].map((m) => Number(m[1]));

test("the audit page needs a session", async () => {
  const t = await createTestApp({ adminPassword: PASSWORD });
  const { res } = await new DashboardClient((r) => t.handle(r)).get("/dashboard/audit");
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toBe("/dashboard");
});

test("newest first, 50 a page with a link to the older ones, filtered by action and target; what was typed is shown escaped", async () => {
  const t = await signedInDashboard();
  for (let i = 0; i < 55; i++)
    await t.stores.audit.append({
      at: new Date(t.clock.now + i).toISOString(),
      action: i % 2 ? "ip_override.added" : "key.created",
      outcome: "succeeded",
      target: i === 54 ? 'k_x (<img src=x onerror="alert(1)">)' : `target ${i}`,
      actor: "ops@vm1",
      channel: "cli",
      change: null,
      detail: null,
    });
  const first = await t.browser.get("/dashboard/audit");
  expect(first.res.status).toBe(200);
  const shown = rows(first.body);
  expect(shown).toHaveLength(50);
  expect(shown).toEqual([...shown].sort((a, b) => b - a));
  expect(first.body).toContain("k_x (&lt;img src=x onerror=&quot;alert(1)&quot;&gt;)");
  expect(first.body).not.toContain("<img src=x");
  const older = /href="(\/dashboard\/audit\?before=\d+)" rel="next"/.exec(first.body)![1];
  const second = await t.browser.get(older);
  // The rest of the 55 events, and the sign-in (the test app stores its password unrecorded, as set-password would).
  expect(rows(second.body).length).toBe(56 - 50);
  expect(Math.max(...rows(second.body))).toBeLessThan(Math.min(...shown));
  expect(second.body).toContain("« Newest");
  expect(second.body).not.toContain('rel="next"');

  const keys = rows((await t.browser.get("/dashboard/audit?action=key")).body);
  expect(keys).toHaveLength(28);
  const one = await t.browser.get("/dashboard/audit?action=ip_override.added&target=TARGET%2053");
  expect(rows(one.body)).toHaveLength(1);
  expect(one.body).toContain('<option value="ip_override.added" selected>');
  expect((await t.browser.get("/dashboard/audit?target=nothing-like-it")).body).toContain("No event matches.");
});

test("a filter or page that is not one is a 400, not a 500", async () => {
  const t = await signedInDashboard();
  for (const query of [
    "action=key.deleted",
    "action=%25",
    `target=${"x".repeat(201)}`,
    "before=0",
    "before=abc",
    "before=1e9",
  ])
    expect((await t.browser.get(`/dashboard/audit?${query}`)).res.status).toBe(400);
});
