import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { scaled } from "./support/slowness.ts";
import { SQL } from "bun";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { POSTGRES_SETUP_TIMEOUT_MS, type PostgresServer, ownPostgresServer } from "./support/postgres.ts";
import { type ServeProcess, makeDataDir, runCliAsync, startServe } from "./support/processes.ts";
import { smallDisk } from "./support/small-disk.ts";

// A PostgreSQL server of this file's own, crashed and started again, and servers under traffic: bounded below.
setDefaultTimeout(scaled(90_000));

/** How long the traffic runs, and when the database fails and comes back within it. */
const TRAFFIC_MS = 7_000;
const FAILS_AT_MS = 1_500;
const BACK_AT_MS = 4_500;
/** No request waits longer: a server that stops answering fails the test rather than holding it. */
const REQUEST_DEADLINE_MS = scaled(15_000);

type Outcome = { readonly status: number; readonly outcome?: string; readonly reason?: string };

/** One client's requests against the server until `until`: each answer kept, none waited on past its deadline. */
async function asking(until: number, ask: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; performance.now() < until; i++) await ask(i);
}

async function answer(res: Promise<Response>): Promise<Outcome> {
  const r = await res;
  const text = await r.text();
  const body = text.startsWith("{") ? (JSON.parse(text) as { outcome?: string; reason?: string }) : {};
  return { status: r.status, outcome: body.outcome, reason: body.reason };
}

/**
 * Writes and removals of override lines, checks and /healthz, all at once against `server`,
 * while `fail` and `recover` run at their moments: what each request got.
 */
async function mixedTraffic(
  server: ServeProcess,
  keys: { manage: string; check: string },
  events: { fail: () => Promise<void>; recover?: () => Promise<void> },
) {
  const started = performance.now();
  const until = started + TRAFFIC_MS;
  const headers = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });
  const call = (path: string, key: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: headers(key), signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
  const posts: (Outcome & { target: string })[] = [];
  const removals: (Outcome & { target: string })[] = [];
  const checks: Outcome[] = [];
  const health: { at: number; status: string; reason?: string }[] = [];
  const added: string[] = [];
  const writer = (lane: number) =>
    asking(until, async (i) => {
      const target = `81.${10 + lane}.${i >> 8}.${i & 255}`;
      const body = JSON.stringify({ kind: "ip", target, action: "deny", reason: `fault drill ${i}` });
      const got = await answer(call("/v1/overrides", keys.manage, { method: "POST", body }));
      posts.push({ ...got, target });
      if (got.status === 201) added.push(target);
    });
  const remover = asking(until, async () => {
    const target = added.shift();
    if (target === undefined) return void (await Bun.sleep(5));
    removals.push({ ...(await answer(call(`/v1/overrides/ip:${target}`, keys.manage, { method: "DELETE" }))), target });
  });
  const checker = asking(until, async (i) => {
    checks.push(await answer(call(`/v1/check?email=someone${i}@mailinator.com`, keys.check)));
  });
  const sampler = asking(until, async () => {
    const h = (await (
      await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) })
    ).json()) as {
      status: string;
      storage: { reason?: string };
    };
    health.push({ at: performance.now() - started, status: h.status, reason: h.storage.reason });
    await Bun.sleep(200);
  });
  const timeline = (async () => {
    await Bun.sleep(FAILS_AT_MS);
    await events.fail();
    if (events.recover) {
      await Bun.sleep(BACK_AT_MS - (performance.now() - started));
      await events.recover();
    }
  })();
  await Promise.all([writer(0), writer(1), remover, checker, sampler, timeline]);
  return { posts, removals, checks, health };
}

/**
 * The promise, read from the database afterwards: no 500 anywhere; every 2xx stored
 * with its audit event (a removal: gone, with its event); every 503 either stored and audited
 * or absent and unaudited; and no line stored without its event.
 */
function expectNothingHalfDone(
  traffic: Awaited<ReturnType<typeof mixedTraffic>>,
  db: { lines: Set<string>; added: Set<string>; removed: Set<string> },
) {
  const all = [...traffic.posts, ...traffic.removals, ...traffic.checks];
  expect(all.filter((o) => o.status >= 500 && o.status !== 503)).toEqual([]);
  expect(traffic.checks.every((c) => c.status === 200)).toBe(true);
  const removed = new Set(traffic.removals.filter((r) => r.status === 204).map((r) => r.target));
  for (const post of traffic.posts) {
    if (post.status === 201) expect([post.target, db.added.has(post.target)]).toEqual([post.target, true]);
    else expect([post.target, post.status]).toEqual([post.target, 503]);
    if (post.status === 503)
      expect(db.lines.has(post.target) ? db.added.has(post.target) : !db.added.has(post.target)).toBe(true);
    if (post.status === 201 && !traffic.removals.some((r) => r.target === post.target))
      expect([post.target, db.lines.has(post.target)]).toEqual([post.target, true]);
  }
  for (const target of removed)
    expect([target, db.lines.has(target), db.removed.has(target)]).toEqual([target, false, true]);
  for (const r of traffic.removals.filter((r) => r.status === 503))
    expect([r.target, db.lines.has(r.target) !== db.removed.has(r.target)]).toEqual([r.target, true]);
  for (const line of db.lines) expect([line, db.added.has(line)]).toEqual([line, true]);
}

async function keysOf(env: Record<string, string>) {
  const create = async (args: string[]) => {
    const made = await runCliAsync(["keys", "create", ...args, "--json"], env);
    expect(made.code).toBe(0);
    return (JSON.parse(made.stdout) as { key: string }).key;
  };
  return {
    manage: await create(["--name", "drill-tool", "--permissions", "manage"]),
    check: await create(["--name", "drill-checks"]),
  };
}

describe("PostgreSQL crashed during mixed traffic, and started again", () => {
  let pg: PostgresServer | null = null;
  beforeAll(async () => {
    // A commit answered must outlive the crash, as on a production server.
    pg = await ownPostgresServer({ synchronous_commit: "on" });
  }, POSTGRES_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await pg?.stop();
  });

  test("no 500; every 2xx stored with its event, every 503 stored with it or absent; /healthz degraded while it lasts", async () => {
    const env = {
      RISKCHECK_DATABASE_URL: pg!.adminUrl,
      RISKCHECK_RATE_PER_MINUTE: "0",
      RISKCHECK_DATA_DIR: makeDataDir(),
    };
    const keys = await keysOf(env);
    const server = await startServe([], env);
    let traffic: Awaited<ReturnType<typeof mixedTraffic>>;
    try {
      traffic = await mixedTraffic(server, keys, { fail: () => pg!.crash(), recover: () => pg!.restart() });
    } finally {
      await server.stop();
    }
    const sql = new SQL({ url: pg!.adminUrl, adapter: "postgres", max: 1, connectionTimeout: 10 });
    try {
      const targets = async (query: Promise<{ target: string }[]>) => new Set((await query).map((r) => r.target));
      expectNothingHalfDone(traffic, {
        lines: await targets(sql`SELECT target FROM ip_overrides`),
        added: await targets(
          sql`SELECT target FROM audit_log WHERE action = 'ip_override.added' AND outcome = 'succeeded'`,
        ),
        removed: await targets(
          sql`SELECT target FROM audit_log WHERE action = 'ip_override.removed' AND outcome = 'succeeded'`,
        ),
      });
    } finally {
      await sql.close();
    }
    const down = traffic.health.filter((h) => h.at > FAILS_AT_MS + 1_500 && h.at < BACK_AT_MS);
    expect(down.length).toBeGreaterThan(0);
    expect(down.every((h) => h.status === "degraded" && h.reason === "unreachable")).toBe(true);
    expect(traffic.posts.some((p) => p.status === 503 && p.reason === "unreachable")).toBe(true);
    // Back: writes go through again before the traffic ends.
    const lastOutage = Math.max(...traffic.posts.map((p, i) => (p.status === 503 ? i : -1)));
    expect(traffic.posts.slice(lastOutage + 1).some((p) => p.status === 201)).toBe(true);
    expect(server.output()).not.toContain("internal_error");
  });
});

/** A 1 MiB tmpfs, where the machine lets this process mount one. */
const small = smallDisk("1m");

// Skipped where no small file system can be mounted (not root, or a container that refuses mounts):
// filling the real disk instead would disturb the whole machine.
describe.skipIf(small === null)("SQLite on a disk that fills during mixed traffic", () => {
  test("no 500; every 2xx stored with its event, every 503 (full) stored with it or absent; /healthz degraded", async () => {
    const db = join(small!, "riskcheck.sqlite");
    const env = { RISKCHECK_DB: db, RISKCHECK_RATE_PER_MINUTE: "0", RISKCHECK_DATA_DIR: makeDataDir() };
    const keys = await keysOf(env);
    const server = await startServe([], env);
    let traffic: Awaited<ReturnType<typeof mixedTraffic>>;
    try {
      // The disk fills by itself: the writers' long lines and their events.
      traffic = await mixedTraffic(server, keys, { fail: async () => {} });
    } finally {
      await server.stop();
    }
    const read = new Database(db, { readonly: true });
    try {
      const targets = (query: string) =>
        new Set(
          read
            .query<{ target: string }, []>(query)
            .all()
            .map((r) => r.target),
        );
      expectNothingHalfDone(traffic, {
        lines: targets("SELECT target FROM ip_overrides"),
        added: targets("SELECT target FROM audit_log WHERE action = 'ip_override.added' AND outcome = 'succeeded'"),
        removed: targets("SELECT target FROM audit_log WHERE action = 'ip_override.removed' AND outcome = 'succeeded'"),
      });
    } finally {
      read.close();
    }
    expect(traffic.posts.filter((p) => p.status === 503).length).toBeGreaterThan(0);
    expect(traffic.posts.every((p) => p.status === 201 || (p.reason === "full" && p.outcome === "not_done"))).toBe(
      true,
    );
    const full = traffic.health.filter((h) => h.status === "degraded");
    expect(full.length).toBeGreaterThan(0);
    expect(full.every((h) => h.reason === "full")).toBe(true);
  });
});
