import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

// The first app loads the bundled IP data; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

const t = await createTestApp();
const { secret: MANAGE } = await t.newKey("support-tool", { permissions: ["manage"] });
const { secret: CHECK } = await t.newKey("backend");

interface PolicyView {
  policy: string;
  revision: number;
  rules: { id: string; mode: string; decision: string; author: string; active: boolean }[];
}
type Problem = { index: number | null; rule: string | null; path: string; message: string };

const call = async (method: string, path: string, body?: unknown, key = MANAGE) => {
  const res = await t.request(path, {
    key,
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: (text === "" ? null : JSON.parse(text)) as PolicyView & {
      error: string;
      message: string;
      problems: Problem[];
    },
  };
};

const TOR = {
  id: "tor-payments",
  conditions: {
    all: [
      { field: "event", op: "equals", value: "payment" },
      { field: "ip.kind", op: "has", value: "hosting" },
    ],
  },
  decision: "block",
  reason: "no card payments from data centres",
};
const assessed = async () =>
  (await (await t.request("/v1/assess?ip=8.8.8.8&event=payment", { key: CHECK })).json()) as {
    decision: string;
    rule: { id: string } | null;
  };

describe("the admin API of the rules", () => {
  test("GET: the default policy, revision 0, no rule", async () => {
    expect(await call("GET", "/v1/policy")).toEqual({
      status: 200,
      body: { policy: "default-1", revision: 0, rules: [] } as never,
    });
  });

  test("POST a rule: 201, added in shadow with the key's name as author; it applies at once in this instance", async () => {
    const { status, body } = await call("POST", "/v1/policy/rules", TOR);
    expect(status).toBe(201);
    expect(body.revision).toBe(1);
    expect(body.rules).toMatchObject([{ id: "tor-payments", mode: "shadow", author: "support-tool", active: true }]);
    expect(body.policy).toMatch(/^default-1\+[0-9a-f]{8}$/);
    expect(await assessed()).toMatchObject({ decision: "allow", rule: null });
  });

  test("PATCH its mode: enforcing, it decides; its position with another rule in front", async () => {
    expect((await call("PATCH", "/v1/policy/rules/tor-payments", { mode: "enforce" })).status).toBe(200);
    expect(await assessed()).toMatchObject({ decision: "block", rule: { id: "tor-payments" } });
    const office = {
      id: "office",
      conditions: { any: [{ field: "ip.asn", op: "in", value: ["AS15169"] }] },
      decision: "allow",
      reason: "our own test traffic",
      mode: "enforce",
    };
    await call("POST", "/v1/policy/rules", office);
    expect(await assessed()).toMatchObject({ rule: { id: "tor-payments" } });
    const moved = await call("PATCH", "/v1/policy/rules/office", { position: 1 });
    expect(moved.body.rules.map((r) => r.id)).toEqual(["office", "tor-payments"]);
    expect(await assessed()).toMatchObject({ decision: "allow", rule: { id: "office" } });
    const placed = await call("POST", "/v1/policy/rules?position=1", { ...TOR, id: "first", mode: "shadow" });
    expect(placed.body.rules.map((r) => r.id)).toEqual(["first", "office", "tor-payments"]);
  });

  test("DELETE: 204, then 404 rule_not_found", async () => {
    expect(await call("DELETE", "/v1/policy/rules/first")).toEqual({ status: 204, body: null as never });
    expect(await call("DELETE", "/v1/policy/rules/first")).toMatchObject({
      status: 404,
      body: { error: "rule_not_found" },
    });
    expect((await call("PATCH", "/v1/policy/rules/first", { mode: "enforce" })).status).toBe(404);
  });

  test("PUT the whole set: replaced, or refused whole naming each rule and field", async () => {
    const refused = await call("PUT", "/v1/policy", {
      rules: [TOR, { ...TOR, id: "bad", conditions: { all: [{ field: "ip.kinds", op: "has", value: "vpn" }] } }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("invalid_policy");
    expect(refused.body.problems).toEqual([
      {
        index: 1,
        rule: "bad",
        path: "conditions.all[0].field",
        message: expect.stringContaining('unknown field "ip.kinds"'),
      },
    ]);
    expect(refused.body.message).toStartWith('rule "bad" (#2): conditions.all[0].field: unknown field "ip.kinds"');
    expect((await call("GET", "/v1/policy")).body.rules.map((r) => r.id)).toEqual(["office", "tor-payments"]);
    const candidate = await call("PUT", "/v1/policy?shadow=1", { rules: [{ ...TOR, mode: "enforce" }] });
    expect(candidate.body.rules).toMatchObject([{ id: "tor-payments", mode: "shadow" }]);
  });

  type Refusal = [name: string, method: string, path: string, body: unknown, status: number, error: string];
  const REFUSALS: Refusal[] = [
    ["a body that is no JSON", "PUT", "/v1/policy", "{rules", 400, "invalid_body"],
    ["a rule set that is a list", "PUT", "/v1/policy", [TOR], 400, "invalid_body"],
    ["a rule that does not parse", "POST", "/v1/policy/rules", { ...TOR, decision: "deny" }, 400, "invalid_policy"],
    ["a position that is no place", "POST", "/v1/policy/rules?position=0", TOR, 400, "invalid_body"],
    ["a mode that is none", "PATCH", "/v1/policy/rules/tor-payments", { mode: "later" }, 400, "invalid_body"],
    ["a PATCH that changes nothing", "PATCH", "/v1/policy/rules/tor-payments", {}, 400, "invalid_body"],
    ["a PATCH of another field", "PATCH", "/v1/policy/rules/tor-payments", { decision: "allow" }, 400, "invalid_body"],
  ];
  for (const [name, method, path, body, status, error] of REFUSALS)
    test(`refused: ${name}`, async () => {
      const res = await call(method, path, body);
      expect({ status: res.status, error: res.body.error }).toEqual({ status, error });
    });

  test("a key without manage gets the 403 that names the permission; nothing changed", async () => {
    const res = await call("POST", "/v1/policy/rules", TOR, CHECK);
    expect(res.status).toBe(403);
    expect(res.body.message).toContain("may not manage override lines or assessment rules");
  });

  test("every edit is on the record, by the key, with what changed; a refused set is no act", async () => {
    const events = await t.stores.audit.read({}, { order: "newest_first", limit: 50 });
    const policy = events.filter((e) => e.action.startsWith("policy"));
    expect(policy.map((e) => `${e.action} ${e.target} ${e.outcome}`).reverse()).toEqual([
      "policy_rule.added tor-payments succeeded",
      "policy_rule.changed tor-payments succeeded",
      "policy_rule.added office succeeded",
      "policy_rule.changed office succeeded",
      "policy_rule.added first succeeded",
      "policy_rule.removed first succeeded",
      "policy_rule.removed first failed",
      "policy_rule.changed first failed",
      "policy.replaced policy succeeded",
    ]);
    expect(policy[0].actor).toContain("(support-tool)");
    expect(policy.find((e) => e.action === "policy_rule.changed" && e.target === "office")?.change).toEqual({
      position: { before: 2, after: 1 },
    });
  });
});
