import { SqliteWrites } from "../../src/stores/sqlite/lock-wait.ts";
import { Database } from "bun:sqlite";
import { expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { SqliteSignInThrottle } from "../../src/stores/sqlite/sign-in-throttle.ts";
import { openDatabase } from "../../src/stores/sqlite/database.ts";
import { makeDataDir, runCli, runCliAsync, startServe } from "../support/processes.ts";
import { SLOWNESS, scaled } from "../support/slowness.ts";
import { eventually } from "../support/deadline.ts";
import { sqliteStores } from "../../src/stores/sqlite/stores.ts";
import { inMemoryChangeSignal } from "../../src/stores/sqlite/change-signal.ts";
import { createTestApp } from "../support/test-app.ts";
import { DashboardClient, csrfOf } from "../support/dashboard-client.ts";
import { DASHBOARD_PASSWORD } from "../support/signed-in-dashboard.ts";

// These tests start real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(60_000));

test("a write lock held by another process slows no API answer, loses no count, and the CLI says what to do", async () => {
  const dir = makeDataDir();
  const dbPath = join(dir, "r.sqlite");
  const env = { RISKCHECK_DATA_DIR: dir, RISKCHECK_DB: dbPath };
  const key = runCli(["keys", "create", "--name", "locked"], env).stdout.trimEnd().split("\n").at(-1)!;
  const server = await startServe([], { ...env, RISKCHECK_USAGE_FLUSH_MS: "200", RISKCHECK_RATE_PER_MINUTE: "0" });
  const other = new Database(dbPath);
  // The server writes too (its first usage flush): wait for it rather than fail on SQLITE_BUSY.
  other.exec(`PRAGMA busy_timeout = ${scaled(10_000)}`);
  let whileLocked: ReturnType<typeof runCliAsync> | undefined;
  try {
    const check = async () => {
      const started = performance.now();
      const res = await fetch(`${server.url}/v1/check?email=someone@gmail.com`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      return performance.now() - started;
    };
    await check();
    other.exec("BEGIN IMMEDIATE");
    // The CLI waits out its lock patience meanwhile, as the server's flush does.
    whileLocked = runCliAsync(["keys", "create", "--name", "while-locked"], env);
    const latencies: number[] = [];
    const until = performance.now() + 3_000;
    while (performance.now() < until) latencies.push(await check());
    // Before: each flush waited out busy_timeout (5 s) on the event loop, holding answers for that long.
    expect(Math.max(...latencies)).toBeLessThan(Math.min(scaled(1_000), 4_000));
    await server.waitForOutput("usage flush failed, will retry");

    const cli = await whileLocked;
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain("the database is locked by another process");
    expect(cli.stderr).toContain(`fuser ${dbPath}`);
    // The failure is not recorded in the locked database: that would wait out the lock a second time.
    expect(cli.stderr).not.toContain("could not record");

    other.exec("COMMIT");
    const counted = () =>
      other.query<{ n: number | null }, []>("SELECT SUM(count) AS n FROM usage_daily").get()!.n ?? 0;
    await eventually("every answer counted once the lock is gone", 5_000, () => counted() >= latencies.length + 1, 50);
    expect(counted()).toBe(latencies.length + 1);
  } finally {
    if (other.inTransaction) other.exec("ROLLBACK");
    other.close();
    // Ended by then unless an expectation failed first; it is killed after the CLI deadline either way.
    await whileLocked?.catch(() => {});
    await server.stop();
  }
});

test("a sign-in attempt waits for a lock between turns of the event loop, not on it", async () => {
  const dbPath = join(makeDataDir(), "r.sqlite");
  const serving = openDatabase(dbPath, 0);
  const other = new Database(dbPath);
  try {
    other.exec("BEGIN IMMEDIATE");
    const throttle = new SqliteSignInThrottle(serving, new SqliteWrites(serving));
    const attempt = throttle.begin("192.0.2.1", Date.now());
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    // Not scaled: the attempt's own patience for the lock is 5 s.
    await Bun.sleep(300);
    clearInterval(ticker);
    // Some 30 turns on a quiet machine; none at all if the attempt waited on the event loop.
    expect(ticks).toBeGreaterThan(Math.floor(10 / SLOWNESS));
    other.exec("COMMIT");
    expect(await attempt).toEqual({ wait: 0, lockedIfWrong: false });
  } finally {
    if (other.inTransaction) other.exec("ROLLBACK");
    other.close();
    serving.close();
  }
});

test("with the lock held elsewhere, a sign-in, a key made in the dashboard, an override line and a rule answer 503 with Retry-After, and change nothing", async () => {
  const dbPath = join(makeDataDir(), "r.sqlite");
  const stores = sqliteStores(openDatabase(dbPath, 0, true), inMemoryChangeSignal(), dbPath);
  const t = await createTestApp({ stores, adminPassword: DASHBOARD_PASSWORD });
  const browser = new DashboardClient((r) => t.handle(r));
  const signedIn = new DashboardClient((r) => t.handle(r));
  expect((await signedIn.signIn(DASHBOARD_PASSWORD)).status).toBe(303);
  const csrf = csrfOf((await signedIn.get("/dashboard")).body);
  const { secret } = await t.newKey("tool", { permissions: ["manage"] });
  const before = (await stores.audit.read({}, { order: "newest_first", limit: 1000 })).length;
  const other = new Database(dbPath);
  other.exec("BEGIN IMMEDIATE");
  let answers: Response[];
  let keyPage = "";
  try {
    answers = await Promise.all([
      browser.signIn(DASHBOARD_PASSWORD),
      signedIn.post("/dashboard/keys", { csrf, name: "made-while-locked" }).then((r) => ((keyPage = r.body), r.res)),
      t.request("/v1/overrides", {
        key: secret,
        method: "POST",
        body: JSON.stringify({ kind: "ip", target: "81.2.69.0/24", action: "deny", reason: "r" }),
      }),
      t.request("/v1/policy/rules", {
        key: secret,
        method: "POST",
        body: JSON.stringify({
          id: "no-hosting",
          conditions: { all: [{ field: "ip.kind", op: "has", value: "hosting" }] },
          decision: "block",
          reason: "r",
        }),
      }),
    ]);
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
  expect(answers.map((a) => [a.status, a.headers.get("retry-after")])).toEqual([
    [503, "2"],
    [503, "2"],
    [503, "2"],
    [503, "2"],
  ]);
  expect(keyPage).toContain("The database is locked by another process: nothing of this request was changed");
  for (const api of [answers[2], answers[3]])
    expect((await api.json()) as { reason: string; outcome: string }).toMatchObject({
      reason: "locked",
      outcome: "not_done",
    });
  expect((await t.keys.list()).map((k) => k.name)).toEqual(["tool"]);
  expect(await stores.ipOverrides.list()).toEqual([]);
  expect((await stores.policy.read()).rules).toEqual([]);
  expect(await stores.audit.read({}, { order: "newest_first", limit: 1000 })).toHaveLength(before);
});
