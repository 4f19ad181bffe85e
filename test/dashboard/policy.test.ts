import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { csrfOf } from "../support/dashboard-client.ts";
import { signedInDashboard } from "../support/signed-in-dashboard.ts";
import { scaled } from "../support/slowness.ts";

setDefaultTimeout(scaled(30_000));

const RULE = {
  id: "disposable-hosting",
  conditions: {
    all: [
      { field: "email.disposable", op: "is", value: true },
      { field: "ip.kind", op: "has", value: "hosting" },
    ],
  },
  decision: "block",
  reason: "a throwaway address from a <data centre>",
};

describe("dashboard: the assessment rules", () => {
  test("a rule added in shadow is counted on the page, then enforced: only the decision changes; every edit audited", async () => {
    const t = await signedInDashboard();
    const { secret } = await t.newKey("signup-backend");
    const assess = async () =>
      (await (
        await t.request("/v1/assess?email=someone@mailinator.com&ip=8.8.8.8&event=signup&explain=1", { key: secret })
      ).json()) as { decision: string; rule: { id: string } | null; shadow: { id: string }[] };
    const empty = await t.browser.get("/dashboard/policy");
    expect(empty.res.status).toBe(200);
    expect(empty.body).toContain("No rules: the default policy decides every assessment.");
    expect(empty.body).toContain('<strong aria-current="page">Assessment rules</strong>');

    const added = await t.browser.post("/dashboard/policy/rules", {
      csrf: csrfOf(empty.body),
      rule: JSON.stringify(RULE),
    });
    expect(added.res.status).toBe(303);
    expect(added.res.headers.get("location")).toBe("/dashboard/policy?done=added");
    const stored = (await t.stores.policy.read()).rules;
    expect(stored.map((r) => [r.id, r.mode, r.author])).toEqual([["disposable-hosting", "shadow", "dashboard"]]);

    // Served here at once: the answer is the default policy's, the rule in shadow beside it.
    const shadowed = await assess();
    expect(shadowed.decision).toBe("challenge");
    expect(shadowed.rule).toBeNull();
    expect(shadowed.shadow.map((r) => r.id)).toEqual(["disposable-hosting"]);
    await t.policyCounts.flush(t.stores.policy);
    const counted = await t.browser.get("/dashboard/policy?done=added");
    expect(counted.body).toContain("The rule was added");
    expect(counted.body).toContain("signup: would have blocked 1 of 1 (changing 1)");
    expect(counted.body).toContain("a throwaway address from a &lt;data centre&gt;");
    expect(counted.body).toMatch(
      /<tr data-event="signup"><td>signup<\/td><td class="num">1<\/td><td class="num">0<\/td><td class="num">1<\/td>/,
    );

    const enforced = await t.browser.post("/dashboard/policy/mode", {
      csrf: csrfOf(counted.body),
      id: "disposable-hosting",
      mode: "enforce",
    });
    expect(enforced.res.status).toBe(303);
    const blocked = await assess();
    expect(blocked.decision).toBe("block");
    expect(blocked.rule?.id).toBe("disposable-hosting");
    await t.policyCounts.flush(t.stores.policy);
    expect((await t.browser.get("/dashboard/policy")).body).toContain("signup: blocked 1 of 2");

    const events = await t.stores.audit.read({ action: "policy_rule" }, { order: "oldest_first", limit: 10 });
    expect(events.map((e) => [e.action, e.target, e.channel])).toEqual([
      ["policy_rule.added", "disposable-hosting", "dashboard"],
      ["policy_rule.changed", "disposable-hosting", "dashboard"],
    ]);
    expect(events[1].change).toEqual({ mode: { before: "shadow", after: "enforce" } });
  });

  test("a rule that does not parse is refused, naming the rule and the field; nothing changes", async () => {
    const t = await signedInDashboard();
    const { body } = await t.browser.get("/dashboard/policy");
    const wrong = { ...RULE, conditions: { all: [{ field: "ip.kinds", op: "has", value: "vpn" }] } };
    const refused = await t.browser.post("/dashboard/policy/rules", {
      csrf: csrfOf(body),
      rule: JSON.stringify(wrong),
    });
    expect(refused.res.status).toBe(400);
    // The rule sent stays in the form, escaped, to be mended.
    expect(refused.body).toMatch(/<textarea id="rule"[^>]*>\{&quot;id&quot;:&quot;disposable-hosting&quot;/);
    expect(refused.body).toContain(
      "Refused, nothing changed: rule &quot;disposable-hosting&quot;: conditions.all[0].field: unknown field",
    );
    const notJson = await t.browser.post("/dashboard/policy/rules", { csrf: csrfOf(body), rule: "{id:" });
    expect(notJson.res.status).toBe(400);
    expect(notJson.body).toContain("That is not JSON");
    const badPlace = await t.browser.post("/dashboard/policy/rules", {
      csrf: csrfOf(body),
      rule: JSON.stringify(RULE),
      position: "first",
    });
    expect(badPlace.res.status).toBe(400);
    const unknown = await t.browser.post("/dashboard/policy/mode", { csrf: csrfOf(body), id: "nope", mode: "enforce" });
    expect(unknown.res.status).toBe(404);
    const badMode = await t.browser.post("/dashboard/policy/mode", { csrf: csrfOf(body), id: "nope", mode: "on" });
    expect(badMode.res.status).toBe(400);
    const forged = await t.browser.post("/dashboard/policy/rules", { csrf: "forged", rule: JSON.stringify(RULE) });
    expect(forged.res.status).toBe(403);
    expect(await t.stores.policy.read()).toEqual({ revision: 0, rules: [] });
    const failed = await t.stores.audit.read({ action: "policy_rule" }, { order: "oldest_first", limit: 10 });
    expect(failed.map((e) => e.outcome)).toEqual(["failed"]);
  });

  test("rules moved, removed, and the whole set replaced in shadow", async () => {
    const t = await signedInDashboard();
    const { body } = await t.browser.get("/dashboard/policy");
    const csrf = csrfOf(body);
    for (const id of ["a", "b", "c"])
      await t.browser.post("/dashboard/policy/rules", { csrf, rule: JSON.stringify({ ...RULE, id, mode: "enforce" }) });
    const ids = async () => (await t.stores.policy.read()).rules.map((r) => `${r.id}:${r.mode}`);
    const page = (await t.browser.get("/dashboard/policy")).body;
    expect([...page.matchAll(/data-rule="([^"]+)"/g)].map((m) => m[1])).toEqual(["a", "b", "c"]);
    expect((await t.browser.post("/dashboard/policy/move", { csrf, id: "c", position: "1" })).res.status).toBe(303);
    expect(await ids()).toEqual(["c:enforce", "a:enforce", "b:enforce"]);
    expect((await t.browser.post("/dashboard/policy/remove", { csrf, id: "a" })).res.status).toBe(303);
    expect(await ids()).toEqual(["c:enforce", "b:enforce"]);
    const set = {
      rules: [
        { ...RULE, id: "x", mode: "enforce" },
        { ...RULE, id: "y" },
      ],
    };
    const replaced = await t.browser.post("/dashboard/policy", { csrf, set: JSON.stringify(set), shadow: "yes" });
    expect(replaced.res.headers.get("location")).toBe("/dashboard/policy?done=replaced");
    expect(await ids()).toEqual(["x:shadow", "y:shadow"]);
    expect(t.policy.current.version).toMatch(/^default-1\+[0-9a-f]{8}$/);
  });
});
