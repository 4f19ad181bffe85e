import { afterAll, afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadIpDatasets } from "../support/ip-datasets.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import { DEFAULT_REPORT_SETTINGS } from "../../src/reports/report.ts";
import { MAX_BATCH_BYTES } from "../../src/http/batch-limits.ts";
import type { Permission } from "../../src/keys/permissions.ts";
import { STORE_BACKENDS } from "../support/store-backends.ts";
import { makeDataDir } from "../support/processes.ts";
import { createTestApp, testSnapshot } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

// The first test loads the bundled IP data; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(60_000));

const DAY = 86_400_000;
/** Global unicast, on no list of the bundled data: ok until reported. */
const QUIET = "81.2.69.142";

type App = Awaited<ReturnType<typeof createTestApp>>;

/** The bundled data with QUIET on the operator's IP allowlist; loaded once, for the test that needs it. */
const allowlistDir = makeDataDir();
afterAll(() => rmSync(allowlistDir, { recursive: true, force: true }));
let withAllowlist: ReturnType<typeof testSnapshot> | undefined;
function quietAllowlisted() {
  mkdirSync(join(allowlistDir, "ip"), { recursive: true });
  writeFileSync(join(allowlistDir, "ip", "allowlist.txt"), `${QUIET}/32\n`);
  withAllowlist ??= loadIpDatasets(allowlistDir, DEFAULT_THRESHOLDS).then((r) => testSnapshot(r.ip));
  return withAllowlist;
}

async function reporter(t: App, name: string, permissions: readonly Permission[] = ["check", "report"]) {
  const { secret, key } = await t.newKey(name, { permissions });
  await known(t, secret);
  return {
    id: key.id,
    secret,
    post: (body: unknown) =>
      t.request("/v1/reports", {
        key: secret,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
  };
}

/** On PostgreSQL a new key reaches the instance by notification: wait for it, 5 s at most. */
async function known(t: App, secret: string): Promise<void> {
  const deadline = performance.now() + scaled(5_000);
  while (t.deps.authenticator.authenticate(secret).outcome !== "active") {
    if (performance.now() > deadline)
      throw new Error(`the new key did not reach the instance within ${scaled(5_000)} ms`);
    await Bun.sleep(5);
  }
}

async function reputation(t: App, secret: string, ip: string, explain = false) {
  const res = await t.request(`/v1/ip-reputation-check?ip=${ip}${explain ? "&explain=1" : ""}`, { key: secret });
  expect(res.status).toBe(200);
  return (
    (await res.json()) as {
      reputation: {
        reputation: string;
        bot: number;
        attack: number;
        sum: number;
        reasons?: {
          rule: { id: string };
          contributions: {
            source: string;
            category: string;
            count: number;
            weight: number;
            counted: number;
            first_seen: string;
            last_seen: string;
          }[];
        };
      };
    }
  ).reputation;
}

describe.each(STORE_BACKENDS)("POST /v1/reports on $name", (backend) => {
  const apps: App[] = [];
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.serving.release();
  });
  const app = async (another = false, options: Parameters<typeof createTestApp>[0] = {}) => {
    const t = await createTestApp({ ...options, stores: another ? await backend.another() : await backend.fresh() });
    apps.push(t);
    return t;
  };

  test("permissions: report needs `report`, the checks need `check`; 401 before 403, 403 before the rate limit", async () => {
    const t = await app();
    const checker = await reporter(t, "checker", ["check"]);
    const writer = await reporter(t, "writer", ["report"]);
    const res = await checker.post({ ip: QUIET, category: "bot" });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: "forbidden", message: expect.stringContaining("permission") });
    for (const path of [`/v1/ip-reputation-check?ip=${QUIET}`, "/v1/check?email=a@gmail.com"]) {
      const get = await t.request(path, { key: writer.secret });
      expect(get.status).toBe(403);
      expect(get.headers.get("x-ratelimit-limit")).toBeNull();
    }
    const batch = await t.request("/v1/check/batch", {
      key: writer.secret,
      method: "POST",
      body: JSON.stringify({ ips: [QUIET] }),
    });
    expect(batch.status).toBe(403);
    expect((await t.request("/v1/reports", { method: "POST", body: "{}" })).status).toBe(401);
    expect((await t.request("/v1/reports", { key: "rk_live_nonsense", method: "POST", body: "{}" })).status).toBe(401);
    // A key made without permissions may check and not report, as every key before them.
    const { secret } = await t.newKey("plain");
    await known(t, secret);
    expect((await t.request(`/v1/ip-reputation-check?ip=${QUIET}`, { key: secret })).status).toBe(200);
    expect(
      (
        await t.request("/v1/reports", {
          key: secret,
          method: "POST",
          body: JSON.stringify({ ip: QUIET, category: "bot" }),
        })
      ).status,
    ).toBe(403);
  });

  test("a batch: accepted, duplicates, and each rejected item by index with its error", async () => {
    const t = await app();
    const a = await reporter(t, "a");
    const res = await a.post({
      reports: [
        { ip: QUIET, category: "bot", comment: "card testing" },
        { ip: "10.0.0.1", category: "bot" },
        { ip: "not an ip", category: "bot" },
        { ip: "89.160.20.112", category: "spam" },
        { ip: QUIET, category: "bot" },
        { ip: "2001:0db8::1", category: "probe" },
        { ip: "2a02:0cf40:0::1", category: "probe" },
        { ip: "89.160.20.112", category: "attack", comment: "x".repeat(1025) },
        "89.160.20.112",
        { ip: "89.160.20.112", category: "attack", extra: 1 },
        { ip: "2A02:CF40::1", category: "probe" },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-limit")).toBeNull();
    const body = (await res.json()) as {
      accepted: number;
      duplicates: number;
      rejected: { index: number; error: string; message: string }[];
    };
    expect(body.accepted).toBe(2);
    expect(body.duplicates).toBe(1);
    expect(body.rejected.map((r) => [r.index, r.error])).toEqual([
      [1, "private_address"],
      [2, "invalid_ip"],
      [3, "invalid_category"],
      [5, "private_address"],
      [6, "invalid_ip"],
      [7, "invalid_comment"],
      [8, "invalid_report"],
      [9, "invalid_report"],
    ]);
    expect(body.rejected.every((r) => r.message.length > 0)).toBe(true);
    // The IPv6 address was stored in its canonical spelling, and counts under it.
    expect((await reputation(t, a.secret, "2a02:cf40::1")).sum).toBe(1);
    const metrics = await (await t.request("/metrics")).text();
    expect(metrics).toContain('riskcheck_reports_total{outcome="accepted"} 2');
    expect(metrics).toContain('riskcheck_reports_total{outcome="duplicate"} 1');
    expect(metrics).toContain('riskcheck_reports_total{outcome="rejected"} 8');
  });

  test("a body refused whole: not JSON, over 1 MiB (413), over 1,000 reports; one bad report is the 400", async () => {
    const t = await app();
    const a = await reporter(t, "a");
    for (const body of ["not json", "[]", '{"reports": {}}', '{"reports": [], "more": 1}', "null"]) {
      const res = await a.post(body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe("invalid_body");
    }
    const many = await a.post({ reports: Array.from({ length: 1001 }, () => ({ ip: QUIET, category: "bot" })) });
    expect(many.status).toBe(400);
    expect(((await many.json()) as { error: string }).error).toBe("too_many_items");
    const large = await a.post({ reports: [{ ip: QUIET, category: "bot", comment: "x".repeat(MAX_BATCH_BYTES) }] });
    expect(large.status).toBe(413);
    expect(((await large.json()) as { error: string }).error).toBe("body_too_large");
    const one = await a.post({ ip: "192.168.1.1", category: "bot" });
    expect(one.status).toBe(400);
    expect(await one.json()).toEqual({ error: "private_address", message: expect.any(String) });
    expect((await reputation(t, a.secret, QUIET)).sum).toBe(0);
  });

  test("one token of the rate limit per request, whatever it holds", async () => {
    const t = await app(false, { ratePerMinute: 1, rateBurst: 2 });
    const a = await reporter(t, "a");
    const reports = Array.from({ length: 500 }, (_, i) => ({
      ip: `89.160.${i >> 8}.${i & 255 || 1}`,
      category: "bot",
    }));
    expect((await a.post({ reports })).status).toBe(200);
    expect((await a.post({ ip: QUIET, category: "bot" })).status).toBe(200);
    const refused = await a.post({ ip: QUIET, category: "probe" });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: string }).error).toBe("rate_limit_exceeded");
  });

  test("dedup window: a key's repeat within RISKCHECK_REPORT_DEDUP is a duplicate, after it a new report", async () => {
    const t = await app();
    const a = await reporter(t, "a");
    const once = { ip: QUIET, category: "attack" };
    expect(await (await a.post(once)).json()).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    t.clock.now += DAY - 1_000;
    expect(await (await a.post(once)).json()).toEqual({ accepted: 0, duplicates: 1, rejected: [] });
    // Another category of the same address is a report of its own.
    expect(await (await a.post({ ip: QUIET, category: "probe" })).json()).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [],
    });
    t.clock.now += 2_000;
    expect(await (await a.post(once)).json()).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    expect((await t.stores.reports.list({ ip: QUIET })).length).toBe(3);
  });

  test("one key counts once however often it reports; the level rises with distinct keys and falls back when reports are deleted", async () => {
    const t = await app();
    const keys = [];
    for (let i = 0; i < 6; i++) keys.push(await reporter(t, `service ${i}`));
    const first = keys[0];
    expect((await reputation(t, first.secret, QUIET)).reputation).toBe("ok");
    for (let day = 0; day < 5; day++) {
      await first.post({ ip: QUIET, category: "bot" });
      t.clock.now += 2 * DAY;
    }
    expect((await t.stores.reports.list({ ip: QUIET })).length).toBe(5);
    expect(await reputation(t, first.secret, QUIET)).toMatchObject({ reputation: "informative", bot: 1, sum: 1 });
    const levels = [];
    for (const key of keys.slice(1)) {
      await key.post({ ip: QUIET, category: "bot" });
      levels.push((await reputation(t, first.secret, QUIET)).reputation);
    }
    expect(levels).toEqual(["suspicious", "warning", "warning", "warning", "bad"]);
    const explained = await reputation(t, first.secret, QUIET, true);
    expect(explained.reasons!.rule.id).toBe("reports>=bad");
    const local = explained.reasons!.contributions.filter((c) => c.source === "local");
    expect(local).toEqual([
      {
        source: "local",
        category: "bot",
        count: 6,
        weight: 1,
        counted: 6,
        first_seen: "2026-11-23T12:00:00.000Z",
        last_seen: new Date(t.clock.now).toISOString(),
      },
    ]);

    // Retraction: one key's, then the rest; the index follows on its next read of the store.
    expect(await t.stores.reports.delete({ ip: QUIET, keyId: keys[5].id }, t.clock.now)).toBe(1);
    await t.reportWatch.refresh();
    expect(await reputation(t, first.secret, QUIET)).toMatchObject({ reputation: "warning", sum: 5 });
    expect(await t.stores.reports.delete({ ip: QUIET }, t.clock.now)).toBe(9);
    await t.reportWatch.refresh();
    expect(await reputation(t, first.secret, QUIET)).toMatchObject({ reputation: "ok", sum: 0 });
  });

  test("reports leave the count when they age out of the window, and are pruned after the retention", async () => {
    const t = await app();
    const a = await reporter(t, "a");
    const b = await reporter(t, "b");
    await a.post({ ip: QUIET, category: "bot" });
    t.clock.now += 60 * DAY;
    await b.post({ ip: QUIET, category: "probe" });
    expect((await reputation(t, a.secret, QUIET)).sum).toBe(2);
    t.clock.now += 31 * DAY;
    expect(await reputation(t, a.secret, QUIET)).toMatchObject({ bot: 0, sum: 1 });
    t.clock.now += 300 * DAY;
    await t.reportWatch.refresh();
    expect((await t.stores.reports.list({})).length).toBe(1);
  });

  test("the caps still apply: an anycast resolver reported by many keys stays suspicious", async () => {
    const t = await app();
    const keys = [];
    for (let i = 0; i < 6; i++) keys.push(await reporter(t, `k${i}`));
    for (const key of keys) await key.post({ ip: "8.8.8.8", category: "attack" });
    const r = await reputation(t, keys[0].secret, "8.8.8.8", true);
    expect(r.attack).toBeGreaterThanOrEqual(6);
    expect(r.reputation).toBe("suspicious");
    expect(r.reasons!.rule.id).toBe("benign-cap");
  });

  test("the operator's IP allowlist still wins: an allowlisted address reported by six keys is ok", async () => {
    const t = await app(false, { snapshot: await quietAllowlisted() });
    const keys = [];
    for (let i = 0; i < 6; i++) keys.push(await reporter(t, `k${i}`));
    for (const key of keys) {
      expect((await key.post({ ip: QUIET, category: "attack" })).status).toBe(200);
      expect((await key.post({ ip: "81.2.69.143", category: "attack" })).status).toBe(200);
    }
    const allowlisted = await reputation(t, keys[0].secret, QUIET, true);
    expect(allowlisted).toMatchObject({ reputation: "ok", attack: 6 });
    expect(allowlisted.reasons!.rule.id).toBe("allowlisted");
    expect(allowlisted.reasons!.contributions.map((c) => c.source)).toContain("local");
    expect((await reputation(t, keys[0].secret, "81.2.69.143")).reputation).toBe("bad");
  });

  test("one key reporting an address in all five categories counts once; the categories still show what was seen", async () => {
    const t = await app();
    const a = await reporter(t, "a");
    const b = await reporter(t, "b");
    const all = await a.post({
      reports: ["bot", "probe", "rate", "attack", "crawler"].map((category) => ({ ip: QUIET, category })),
    });
    expect(await all.json()).toEqual({ accepted: 5, duplicates: 0, rejected: [] });
    const one = await reputation(t, a.secret, QUIET, true);
    expect(one).toMatchObject({ reputation: "informative", sum: 1 });
    const local = one.reasons!.contributions.filter((c) => c.source === "local");
    expect(local.map((c) => [c.category, c.count])).toEqual([
      ["bot", 1],
      ["probe", 1],
      ["rate", 1],
      ["attack", 1],
      ["crawler", 1],
    ]);
    expect(local.reduce((n, c) => n + c.counted, 0)).toBe(1);
    // The key's latest report decides which counter its one count goes to.
    t.clock.now += 2 * DAY;
    expect((await a.post({ ip: QUIET, category: "attack" })).status).toBe(200);
    expect(await reputation(t, a.secret, QUIET)).toMatchObject({ attack: 1, bot: 0, sum: 1 });
    expect((await b.post({ ip: QUIET, category: "bot" })).status).toBe(200);
    expect(await reputation(t, a.secret, QUIET)).toMatchObject({ reputation: "suspicious", attack: 1, bot: 1, sum: 2 });
  });

  test("a revoked key's reports stop counting at once, on this instance and, within a read, on another", async () => {
    const t = await app();
    const rogue = await reporter(t, "rogue");
    const honest = await reporter(t, "honest");
    await rogue.post({ ip: QUIET, category: "attack" });
    await honest.post({ ip: QUIET, category: "attack" });
    const other = await app(true);
    expect((await reputation(t, honest.secret, QUIET)).sum).toBe(2);
    await t.keys.revoke(rogue.id);
    // With PostgreSQL the instance learns of the revocation by notification; no report is read again for it.
    const learnt = performance.now() + scaled(5_000);
    while (t.deps.authenticator.authenticate(rogue.secret).outcome !== "revoked") {
      if (performance.now() > learnt)
        throw new Error(`the revocation did not reach the instance within ${scaled(5_000)} ms`);
      await Bun.sleep(5);
    }
    expect(await reputation(t, honest.secret, QUIET)).toMatchObject({ reputation: "informative", sum: 1 });
    const deadline = performance.now() + scaled(5_000);
    while ((await reputation(other, honest.secret, QUIET)).sum !== 1) {
      if (performance.now() > deadline)
        throw new Error(`the revocation did not reach the other instance within ${scaled(5_000)} ms`);
      await Bun.sleep(20);
    }
    // The reports are still stored: the count follows the key, the audit trail stays.
    expect((await t.stores.reports.list({ ip: QUIET })).length).toBe(2);
  });

  test("all of one key's reports deleted at once; another instance applies the deletion without reading every report again", async () => {
    const one = await app();
    const rogue = await reporter(one, "rogue");
    const honest = await reporter(one, "honest");
    await rogue.post({ reports: [QUIET, "89.160.20.112", "2a02:cf40::1"].map((ip) => ({ ip, category: "attack" })) });
    await honest.post({ ip: QUIET, category: "bot" });
    const other = await app(true);
    const read: number[] = [];
    const store = other.stores.reports;
    const changes = store.changes.bind(store);
    store.changes = (cursor, windowStartMs, onRows) =>
      changes(cursor, windowStartMs, (rows) => (read.push(rows.length), onRows(rows)));
    expect((await reputation(other, honest.secret, "89.160.20.112")).sum).toBe(1);
    expect(await one.stores.reports.delete({ keyId: rogue.id }, one.clock.now)).toBe(3);
    await other.reportWatch.refresh();
    expect(read.reduce((a, b) => a + b, 0)).toBe(0);
    expect((await reputation(other, honest.secret, "89.160.20.112")).sum).toBe(0);
    expect((await reputation(other, honest.secret, "2a02:cf40::1")).sum).toBe(0);
    expect(await reputation(other, honest.secret, QUIET)).toMatchObject({ bot: 1, attack: 0, sum: 1 });
    expect((await one.stores.reports.list({})).map((r) => r.keyId)).toEqual([honest.id]);
    // A report made after the deletion counts again, on both.
    one.clock.now += 1_000;
    await rogue.post({ ip: "89.160.20.112", category: "probe" });
    await other.reportWatch.refresh();
    expect((await reputation(other, honest.secret, "89.160.20.112")).sum).toBe(1);
  });

  test("a key reports at most RISKCHECK_REPORT_KEY_DAILY_LIMIT distinct addresses a day: further ones are limit_reached, by index", async () => {
    const t = await app(false, { reports: { ...DEFAULT_REPORT_SETTINGS, keyDailyLimit: 3 } });
    const a = await reporter(t, "a");
    const b = await reporter(t, "b");
    const ips = ["81.2.69.142", "81.2.69.143", "81.2.69.144", "81.2.69.145", "81.2.69.146"];
    const res = await a.post({
      reports: [...ips.map((ip) => ({ ip, category: "attack" })), { ip: "10.0.0.1", category: "bot" }],
    });
    expect(await res.json()).toEqual({
      accepted: 3,
      duplicates: 0,
      rejected: [
        { index: 3, error: "limit_reached", message: expect.stringContaining("RISKCHECK_REPORT_KEY_DAILY_LIMIT") },
        { index: 4, error: "limit_reached", message: expect.any(String) },
        { index: 5, error: "private_address", message: expect.any(String) },
      ],
    });
    // An address already reported today costs nothing more; another key has its own limit.
    expect(await (await a.post({ ip: ips[0], category: "bot" })).json()).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [],
    });
    expect(
      ((await (await a.post({ ip: ips[4], category: "bot" })).json()) as { rejected: { error: string }[] }).rejected[0]
        .error,
    ).toBe("limit_reached");
    expect(await (await b.post({ ip: ips[4], category: "bot" })).json()).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [],
    });
    expect((await reputation(t, a.secret, ips[3])).sum).toBe(0);
    // The next day (UTC) the key starts again.
    t.clock.now += DAY;
    expect(await (await a.post({ ip: ips[3], category: "attack" })).json()).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [],
    });
  });

  test("a comment a store cannot hold as given (NUL, lone surrogate) is invalid_comment for that item; the rest of the batch is stored", async () => {
    const t = await app();
    const a = await reporter(t, "a");
    const body = `{"reports":[{"ip":"${QUIET}","category":"bot","comment":"ok"},{"ip":"89.160.20.112","category":"bot","comment":"nul \\u0000 here"},{"ip":"89.160.20.113","category":"bot","comment":"lone \\ud800"},{"ip":"89.160.20.114","category":"probe","comment":"pair \\ud83d\\ude00 fine"}]}`;
    const res = await a.post(body);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { accepted: number; rejected: { index: number; error: string }[] };
    expect(answer.accepted).toBe(2);
    expect(answer.rejected.map((r) => [r.index, r.error])).toEqual([
      [1, "invalid_comment"],
      [2, "invalid_comment"],
    ]);
    expect((await t.stores.reports.list({})).map((r) => r.comment).sort()).toEqual(["ok", "pair \u{1F600} fine"]);
    const single = await a.post(`{"ip":"${QUIET}","category":"probe","comment":"\\u0000"}`);
    expect(single.status).toBe(400);
    expect(((await single.json()) as { error: string }).error).toBe("invalid_comment");
  });

  test("a database locked by another process: 503 with Retry-After, nothing stored; the same request sent again is stored", async () => {
    const t = await app();
    const a = await reporter(t, "a");
    const release = await backend.lockReports();
    let res: Response;
    try {
      res = await a.post({ ip: QUIET, category: "attack" });
    } finally {
      await release();
    }
    expect(res.status).toBe(503);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await res.json()).toEqual({
      error: "service_unavailable",
      reason: "locked",
      outcome: "not_done",
      message: expect.stringContaining("nothing of this request was changed"),
    });
    // Said once in the log, with the path and what to do; /healthz says degraded.
    expect(t.errors).toEqual([expect.stringContaining("(answered 503 while it lasts)")]);
    expect(((await (await t.request("/healthz")).json()) as { storage: unknown }).storage).toMatchObject({
      status: "degraded",
      reason: "locked",
    });
    expect(await (await a.post({ ip: QUIET, category: "attack" })).json()).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [],
    });
    expect((await t.stores.reports.list({})).length).toBe(1);
    expect((await reputation(t, a.secret, QUIET)).sum).toBe(1);
  });

  test("a report item nested 50,000 deep is invalid_report, never a 500", async () => {
    const t = await app();
    const a = await reporter(t, "a");
    const deep = "[".repeat(50_000) + "]".repeat(50_000);
    const res = await a.post(`{"reports":[${deep},{"ip":"${QUIET}","category":"bot"}]}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [{ index: 0, error: "invalid_report", message: expect.any(String) }],
    });
    expect(t.errors).toEqual([]);
  });

  test("a report posted to one instance is counted by another, and survives a restart", async () => {
    const one = await app();
    const a = await reporter(one, "a");
    const other = await app(true);
    expect((await a.post({ ip: QUIET, category: "rate" })).status).toBe(200);
    expect((await reputation(other, a.secret, QUIET)).sum).toBe(0);
    await other.reportWatch.refresh();
    expect(await reputation(other, a.secret, QUIET)).toMatchObject({ reputation: "informative", sum: 1 });
    await other.stores.reports.delete({ ip: QUIET }, other.clock.now);
    await one.reportWatch.refresh();
    expect((await reputation(one, a.secret, QUIET)).sum).toBe(0);
    // A new instance over the same database starts with what is stored.
    expect((await a.post({ ip: QUIET, category: "bot" })).status).toBe(200);
    const restarted = await app(true);
    expect((await reputation(restarted, a.secret, QUIET)).sum).toBe(1);
  });
});
