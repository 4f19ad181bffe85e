import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { scaled } from "../support/slowness.ts";
import type { AuditEntry } from "../../src/audit/audit-event.ts";
import { StorageUnavailable } from "../../src/faults/storage-fault.ts";
import { inMemoryChangeSignal } from "../../src/stores/sqlite/change-signal.ts";
import { openDatabase } from "../../src/stores/sqlite/database.ts";
import { sqliteStores } from "../../src/stores/sqlite/stores.ts";
import type { Stores } from "../../src/stores/stores.ts";
import { POSTGRES_SETUP_TIMEOUT_MS, startTestPostgres } from "../support/postgres.ts";
import { STORE_BACKENDS } from "../support/store-backends.ts";
import { createTestApp } from "../support/test-app.ts";

// The bundled IP data loads once per process; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));
beforeAll(startTestPostgres, POSTGRES_SETUP_TIMEOUT_MS);

type App = Awaited<ReturnType<typeof createTestApp>>;

async function managed(stores: Stores) {
  const t = await createTestApp({ stores });
  const { secret } = await t.newKey("support-tool", { permissions: ["manage"] });
  const deadline = performance.now() + 5_000;
  while (t.deps.authenticator.authenticate(secret).outcome !== "active" && performance.now() < deadline)
    await Bun.sleep(5);
  const post = (target: string, reason: string) =>
    t.request("/v1/overrides", {
      key: secret,
      method: "POST",
      body: JSON.stringify({ kind: "ip", target, action: "deny", reason }),
    });
  return { t, secret, post };
}

const addedEvents = async (t: App): Promise<AuditEntry[]> =>
  (await t.stores.audit.read({ action: "ip_override.added" }, { order: "oldest_first", limit: 10_000 })).filter(
    (e) => e.outcome === "succeeded",
  );

/**
 * Posts lines until the database refuses them, then holds the promise: never a 500;
 * every 201 stored with its event; every 503 stored with its event or absent without one.
 */
async function postUntilFull(t: App, post: (target: string, reason: string) => Promise<Response>) {
  const outcomes: { target: string; status: number; body: { outcome?: string; reason?: string } }[] = [];
  for (let i = 0; i < 120; i++) {
    const target = `81.${2 + (i >> 8)}.${i & 255}.0/24`;
    const res = await post(target, `ticket ${i}: ${"a long reason to fill the pages ".repeat(14)}`);
    outcomes.push({ target, status: res.status, body: (await res.json()) as { outcome?: string; reason?: string } });
  }
  expect(outcomes.filter((o) => o.status !== 201 && o.status !== 503)).toEqual([]);
  const refused = outcomes.filter((o) => o.status === 503);
  expect(refused.length).toBeGreaterThan(0);
  const stored = new Set((await t.stores.ipOverrides.list()).map((l) => l.target));
  const events = new Set((await addedEvents(t)).map((e) => e.target));
  expect([...stored].sort()).toEqual([...events].sort());
  for (const o of outcomes.filter((o) => o.status === 201)) expect(stored.has(o.target)).toBe(true);
  return refused;
}

describe("a write that meets a failing database", () => {
  test("SQLite full: the 503s say nothing changed, and nothing did; every 201 is stored with its event; /healthz degraded", async () => {
    const db = openDatabase(":memory:");
    const { t, post } = await managed(sqliteStores(db, inMemoryChangeSignal(), ":memory:"));
    const { page_count } = db.query<{ page_count: number }, []>("PRAGMA page_count").get()!;
    db.exec(`PRAGMA max_page_count = ${page_count + 8}`);
    const refused = await postUntilFull(t, post);
    expect(refused.every((o) => o.body.reason === "full" && o.body.outcome === "not_done")).toBe(true);
    const health = (await (await t.request("/healthz")).json()) as { status: string; storage: { reason: string } };
    expect([health.status, health.storage.reason]).toEqual(["degraded", "full"]);
    const metrics = await (await t.request("/metrics")).text();
    expect(metrics).toMatch(/riskcheck_storage_faults_total\{reason="full"\} [1-9]/);
    expect(metrics).toContain("riskcheck_storage_degraded 1");
    // The checks answer from memory all along.
    const { secret } = await t.newKey("checkout");
    expect((await t.request("/v1/ip-reputation-check?ip=81.2.0.1", { key: secret })).status).toBe(200);
    t.clock.now += 10_000;
    expect(((await (await t.request("/healthz")).json()) as { status: string }).status).toBe("ok");
  });

  test("PostgreSQL whose log cannot take the event: the act is rolled back with it, 503, nothing half done", async () => {
    const backend = STORE_BACKENDS.find((b) => b.name === "PostgreSQL")!;
    const { t, post } = await managed(await backend.fresh());
    await backend.execute(`
      CREATE FUNCTION test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT count(*) FROM audit_log) >= 40 THEN RAISE EXCEPTION 'could not extend file' USING ERRCODE = 'disk_full'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_disk_full BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION test_disk_full();`);
    try {
      const refused = await postUntilFull(t, post);
      expect(refused.every((o) => o.body.reason === "full" && o.body.outcome === "not_done")).toBe(true);
      expect(await t.stores.ipOverrides.list()).toHaveLength((await addedEvents(t)).length);
    } finally {
      await backend.execute("DROP TRIGGER test_disk_full ON audit_log; DROP FUNCTION test_disk_full()");
    }
  });

  test("a commit whose answer was lost is a 503 that says the change may have been made: here it was, with its event", async () => {
    const stores = sqliteStores(openDatabase(":memory:"), inMemoryChangeSignal(), ":memory:");
    const lost: Stores = {
      ...stores,
      transaction: async (work) => {
        await stores.transaction(work);
        throw new StorageUnavailable("the connection to the database was lost", "unreachable", "unknown");
      },
    };
    const { t, post } = await managed(lost);
    const res = await post("81.2.69.0/24", "ticket 1");
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    const body = (await res.json()) as { error: string; outcome: string; message: string };
    expect(body).toMatchObject({ error: "service_unavailable", reason: "unreachable", outcome: "unknown" });
    expect(body.message).toContain("may or may not have been made");
    expect((await stores.ipOverrides.list()).map((l) => l.target)).toEqual(["81.2.69.0/24"]);
    expect((await addedEvents(t)).map((e) => e.target)).toEqual(["81.2.69.0/24"]);
  });

  test("a change committed before the database went away is a 201, applied here at the next look", async () => {
    const stores = sqliteStores(openDatabase(":memory:"), inMemoryChangeSignal(), ":memory:");
    let gone = false;
    const ipOverrides = Object.assign(Object.create(stores.ipOverrides), {
      changesSince: (since: number | null) =>
        gone
          ? Promise.reject(new StorageUnavailable("gone", "unreachable", "unknown"))
          : stores.ipOverrides.changesSince(since),
    });
    const { t, post } = await managed({ ...stores, ipOverrides });
    gone = true;
    const res = await post("81.2.69.0/24", "ticket 1");
    expect(res.status).toBe(201);
    expect(t.errors.some((e) => e.includes("the change is stored, but reading it back failed"))).toBe(true);
    gone = false;
    await t.ipOverrides.refresh();
    const { secret } = await t.newKey("checkout");
    const answer = (await (await t.request("/v1/ip-reputation-check?ip=81.2.69.9", { key: secret })).json()) as {
      reputation: { reputation: string };
    };
    expect(answer.reputation.reputation).toBe("bad");
  });
});
