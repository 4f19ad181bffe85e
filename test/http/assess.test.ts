import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { editPolicy, putRule, setMode } from "../../src/assess/policy-edits.ts";
import { createTestApp } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

// The first app loads the bundled IP data; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

const t = await createTestApp({ ipQuotaPerMonth: 10 });
const { secret: KEY } = await t.newKey("signup-backend");

const get = (query: string, secret = KEY) => t.request(`/v1/assess${query}`, { key: secret });
const post = (body: unknown, query = "", secret = KEY) =>
  t.request(`/v1/assess${query}`, {
    key: secret,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const json = async (res: Response) => ({
  status: res.status,
  body: (await res.json()) as { error: string; message: string },
});

interface AssessAnswer {
  decision: string;
  score: number;
  reasons: { code: string; weight: number; fact: string }[];
  rule: { id: string; mode: string } | null;
  policy: string;
  event: string | null;
  email: { reasons: { rule: string } };
  ip: { ip: string; reputation: { reasons: { rule: { id: string } } } };
  shadow?: unknown[];
}
const answerOf = async (res: Response | Promise<Response>) => (await (await res).json()) as AssessAnswer;

describe("GET and POST /v1/assess", () => {
  test("the decision, score, reasons, rule and policy, then the email and IP answers as the checks give them", async () => {
    const res = await get("?email=someone@mailinator.com&ip=8.8.8.8&event=signup");
    expect(res.status).toBe(200);
    const body = await answerOf(res);
    expect(Object.keys(body)).toEqual(["decision", "score", "reasons", "rule", "policy", "event", "email", "ip"]);
    expect(body).toMatchObject({
      decision: "challenge",
      score: 80,
      rule: null,
      policy: "default-1",
      event: "signup",
    });
    expect(body.reasons.map((r: { code: string }) => r.code)).toEqual([
      "email.disposable",
      "ip.reputation.informative",
      "ip.kind.hosting",
    ]);
    const email = await (await t.request("/v1/check?email=someone@mailinator.com", { key: KEY })).json();
    const ip = await (await t.request("/v1/ip-reputation-check?ip=8.8.8.8", { key: KEY })).json();
    expect(body.email).toEqual(email as never);
    expect(body.ip).toEqual(ip as never);
  });

  test("POST takes the same values as a JSON body and answers the same", async () => {
    const byGet = await answerOf(get("?email=Jane%2Btag@gmail.com&ip=2.125.160.216"));
    const byPost = await answerOf(post({ email: "Jane+tag@gmail.com", ip: "2.125.160.216" }));
    expect(byPost).toEqual(byGet);
    expect(byPost).toMatchObject({ decision: "allow", score: 0, reasons: [], event: null });
  });

  test("either value alone; the other is null", async () => {
    expect((await answerOf(get("?email=a@gmail.com"))).ip).toBeNull();
    expect(await answerOf(post({ ip: "8.8.8.8", event: "Login" }))).toMatchObject({ email: null, event: "login" });
  });

  test("?explain=1 explains both answers and names the shadow rules that would have decided", async () => {
    const body = await answerOf(get("?email=someone@mailinator.com&ip=8.8.8.8&explain=1"));
    expect(body.email.reasons.rule).toBe("listed");
    expect(body.ip.reputation.reasons.rule.id).toBe("kind-vpn-or-hosting");
    expect(body.shadow).toEqual([]);
  });

  type Refusal = [name: string, res: () => Promise<Response>, status: number, error: string];
  const REFUSALS: Refusal[] = [
    ["no value", () => get(""), 400, "missing_parameter"],
    ["an event alone", () => get("?event=signup"), 400, "missing_parameter"],
    ["an invalid email", () => get("?email=x@&ip=8.8.8.8"), 400, "invalid_email"],
    ["an invalid address", () => get("?email=a@gmail.com&ip=1.2.3"), 400, "invalid_ip"],
    ["an invalid event", () => get("?email=a@gmail.com&event=sign%20up"), 400, "invalid_event"],
    ["email given twice", () => get("?email=a@gmail.com&email=b@gmail.com"), 400, "invalid_email"],
    ["ip with brackets", () => get("?ip[]=8.8.8.8"), 400, "invalid_ip"],
    ["ip and caller_ip", () => get("?ip=8.8.8.8&caller_ip=1"), 400, "invalid_ip"],
    ["a body that is no JSON", () => post("{email:"), 400, "invalid_body"],
    ["a body that is a list", () => post([{ email: "a@gmail.com" }]), 400, "invalid_body"],
    ["a misspelt key", () => post({ emails: "a@gmail.com" }), 400, "invalid_body"],
    ["caller_ip that is no boolean", () => post({ caller_ip: "yes" }), 400, "invalid_body"],
    ["an email that is no string", () => post({ email: 42 }), 400, "invalid_email"],
    ["an event that is no string", () => post({ email: "a@gmail.com", event: ["signup"] }), 400, "invalid_event"],
    ["a body over 16 KiB", () => post({ email: `${"a".repeat(17_000)}@gmail.com` }), 413, "body_too_large"],
  ];
  for (const [name, res, status, error] of REFUSALS)
    test(`refused: ${name}`, async () => {
      const { status: got, body } = await json(await res());
      expect({ status: got, error: body.error }).toEqual({ status, error });
      expect(typeof body.message).toBe("string");
    });

  test("caller_ip assesses the caller's own address, as the IP check does without ip", async () => {
    t.client.address = "81.2.69.142";
    try {
      const body = await answerOf(post({ caller_ip: true, email: "a@gmail.com" }));
      expect(body.ip.ip).toBe("81.2.69.142");
      expect((await answerOf(get("?caller_ip"))).ip.ip).toBe("81.2.69.142");
    } finally {
      t.client.address = "203.0.113.7";
    }
  });
});

describe("the quota and usage", () => {
  test("an address looked up is one IP-check unit; an email alone or a private address none", async () => {
    const { secret, key: k } = await t.newKey("quota", { ipQuotaPerMonth: 2 });
    const email = await get("?email=a@gmail.com", secret);
    expect(email.headers.get("x-quota-remaining")).toBeNull();
    const looked = await get("?email=a@gmail.com&ip=8.8.8.8", secret);
    expect(looked.headers.get("x-quota-remaining")).toBe("1");
    const lan = await post({ ip: "10.1.2.3" }, "", secret);
    expect(lan.status).toBe(200);
    expect(lan.headers.get("x-quota-remaining")).toBe("1");
    expect((await post({ ip: "2.125.160.216" }, "", secret)).headers.get("x-quota-remaining")).toBe("0");
    const refused = await json(await get("?ip=8.8.8.8", secret));
    expect(refused).toMatchObject({ status: 429, body: { error: "quota_exceeded" } });
    // The quota is checked before the values: an invalid address is refused for it too; an email alone is not.
    expect((await get("?ip=1.2.3", secret)).status).toBe(429);
    expect((await get("?email=a@gmail.com", secret)).status).toBe(200);
    await t.usage.flush();
    const rows = await t.usageStore.outcomesOf(k.id, 1, t.clock.now);
    const assess = Object.fromEntries(rows.filter((r) => r.endpoint === "assess").map((r) => [r.outcome, r.count]));
    expect(assess).toEqual({ ok: 2, ok_unmetered: 3 });
  });

  test("a key without the check permission is refused", async () => {
    const { secret } = await t.newKey("reporter-only", { permissions: ["report"] });
    expect((await json(await get("?email=a@gmail.com", secret))).status).toBe(403);
  });
});

describe("operator rules through the store, in shadow and enforcing", () => {
  test("a rule added is in force at the next look; switched to enforce, it changes the decision only", async () => {
    const rule = {
      id: "disposable-hosting",
      conditions: {
        all: [
          { field: "email.disposable", op: "is", value: true },
          { field: "ip.kind", op: "has", value: "hosting" },
        ],
      },
      decision: "block",
      reason: "a throwaway address from a data centre",
    };
    await editPolicy(t.stores.policy, putRule(rule, { author: "test", nowMs: t.clock.now }));
    expect(await t.policy.refresh()).toBe(true);
    const query = "?email=someone@mailinator.com&ip=8.8.8.8&event=signup&explain=1";
    const shadowed = await answerOf(get(query));
    expect(shadowed).toMatchObject({ decision: "challenge", rule: null });
    expect(shadowed.policy).toMatch(/^default-1\+[0-9a-f]{8}$/);
    expect(shadowed.shadow).toEqual([
      { id: "disposable-hosting", decision: "block", mode: "shadow", reason: "a throwaway address from a data centre" },
    ]);
    await editPolicy(t.stores.policy, setMode("disposable-hosting", "enforce"));
    await t.policy.refresh();
    const enforced = await answerOf(get(query));
    expect(enforced).toMatchObject({
      decision: "block",
      rule: { id: "disposable-hosting", mode: "enforce" },
      shadow: [],
    });
    expect(enforced.policy).not.toBe(shadowed.policy);
    const { decision: _d, rule: _r, policy: _p, shadow: _s, ...rest } = enforced;
    const { decision: _d2, rule: _r2, policy: _p2, shadow: _s2, ...restBefore } = shadowed;
    expect(rest).toEqual(restBefore);
  });

  test("each assessment is counted by event and decision, and per rule, for the store", async () => {
    await t.policyCounts.flush(t.stores.policy);
    const counts = await t.stores.policy.countsSince("2026-11-01");
    const of = (rule: string, outcome: string) =>
      counts.filter((c) => c.rule === rule && c.outcome === outcome).reduce((n, c) => n + c.count, 0);
    expect(of("disposable-hosting", "would_decide")).toBe(1);
    expect(of("disposable-hosting", "would_change")).toBe(1);
    expect(of("disposable-hosting", "decided")).toBe(1);
    expect(counts.find((c) => c.rule === "disposable-hosting")?.event).toBe("signup");
    expect(of("", "block")).toBeGreaterThanOrEqual(1);
  });
});

describe("in the batch", () => {
  const batch = (body: unknown, secret = KEY) =>
    t.request("/v1/check/batch", {
      key: secret,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  test("assess items answered as POST /v1/assess answers each, or with their item error; the others as before", async () => {
    const items = [
      { email: "someone@mailinator.com", ip: "8.8.8.8", event: "signup" },
      { email: "x@" },
      { event: "signup" },
      "a@gmail.com",
      { email: "a@gmail.com", caller_ip: true },
      { ip: "10.1.2.3" },
    ];
    const { secret } = await t.newKey("batch");
    const res = await batch({ emails: ["a@gmail.com"], assess: items }, secret);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { emails: unknown[]; ips: unknown[]; assess: Record<string, unknown>[] };
    expect(Object.keys(body)).toEqual(["emails", "ips", "assess"]);
    expect(body.assess[0]).toEqual((await answerOf(post(items[0], "", secret))) as never);
    expect(body.assess.slice(1, 5).map((a) => a.error)).toEqual([
      "invalid_email",
      "missing_parameter",
      "invalid_item",
      "invalid_item",
    ]);
    expect(body.assess[1]).toMatchObject({
      input: { email: "x@" },
      message: "The provided email address is not valid",
    });
    expect(body.assess[5]).toMatchObject({ decision: "allow", ip: { ip: "10.1.2.3" } });
    // Without assess items, the answer has no assess list: the batch's answer as it always was.
    const without = (await (await batch({ ips: ["8.8.8.8"] }, secret)).json()) as object;
    expect(Object.keys(without)).toEqual(["emails", "ips"]);
  });

  test("an assess item that looks an address up is a quota unit; a batch that does not fit is refused whole", async () => {
    const { secret } = await t.newKey("batch-quota", { ipQuotaPerMonth: 3 });
    const res = await batch(
      { ips: ["8.8.8.8"], assess: [{ ip: "2.125.160.216" }, { ip: "10.0.0.1" }, { email: "a@gmail.com" }] },
      secret,
    );
    expect(res.headers.get("x-quota-remaining")).toBe("1");
    const refused = await batch({ assess: [{ ip: "8.8.8.8" }, { ip: "1.1.1.1" }] }, secret);
    expect(refused.status).toBe(429);
    expect(
      (await batch({ assess: [{ email: "a@gmail.com" }, { ip: "1.1.1.1" }] }, secret)).headers.get("x-quota-remaining"),
    ).toBe("0");
  });

  test("refused whole: an assess that is no list, or more than 1,000 items in all", async () => {
    expect((await batch({ assess: { email: "a@gmail.com" } })).status).toBe(400);
    const many = await batch({
      emails: Array(600).fill("a@gmail.com"),
      assess: Array(401).fill({ email: "a@gmail.com" }),
    });
    expect(((await many.json()) as { error: string }).error).toBe("too_many_items");
  });
});
