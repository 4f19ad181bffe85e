import { Database } from "bun:sqlite";
import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { editPolicy, putRule } from "../../src/assess/policy-edits.ts";
import { setAdminPassword } from "../../src/dashboard/admin-password.ts";
import { KeyAuthenticator } from "../../src/keys/key-authenticator.ts";
import { UsageRecorder } from "../../src/keys/usage-recorder.ts";
import { openPostgresStores } from "../../src/stores/postgres/stores.ts";
import { openSqliteStores } from "../../src/stores/sqlite/stores.ts";
import { POSTGRES_SETUP_TIMEOUT_MS, freshDatabaseUrl, startTestPostgres } from "../support/postgres.ts";
import { runCliAsync } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

setDefaultTimeout(scaled(30_000));

beforeAll(startTestPostgres, POSTGRES_SETUP_TIMEOUT_MS);

test("db migrate --from-sqlite copies keys, usage and the dashboard's state into an empty PostgreSQL database, once", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "rk-migrate-")), "riskcheck.sqlite");
  const now = Date.now();
  const sqlite = openSqliteStores(file);
  const created = await sqlite.keys.create(
    { name: "checkout", ipQuotaPerMonth: 10, expiresAt: "2031-01-01T00:00:00.000Z", allowedNetworks: ["10.0.0.0/8"] },
    new Date(now - 2_000),
  );
  const previous = created.secret;
  const kept = { ...created, ...(await sqlite.keys.rotate(created.key.id, 3_600_000, new Date(now - 1_500))) };
  const gone = await sqlite.keys.create({ name: "old" }, new Date(now - 1_000));
  await sqlite.keys.revoke(gone.key.id);
  const usage = new UsageRecorder(sqlite.usage);
  usage.usedFrom(kept.key.id, "10.1.2.3", now);
  for (let i = 0; i < 3; i++) usage.record(kept.key.id, "ip", "ok", now);
  usage.record(kept.key.id, "ip", "quota_exceeded", now);
  usage.record(kept.key.id, "email", "ok", now);
  await usage.flush();
  await setAdminPassword(sqlite.adminPassword, "correct horse battery");
  const { token } = await sqlite.sessions.create(now);
  for (let i = 0; i < 5; i++) await sqlite.signInThrottle.begin("203.0.113.9", now);
  await sqlite.reports.add(
    kept.key.id,
    [{ ip: "81.2.69.142", category: "attack", comment: "credential stuffing" }],
    now - 500,
    { dedupSinceMs: now - 86_400_000, daySinceMs: now - 86_400_000, dailyAddresses: 10 },
  );
  const override = {
    domain: "partner.example",
    action: "allow" as const,
    reason: "our reseller's domain",
    author: "ops",
    created: new Date(now - 300).toISOString(),
    until: "2031-01-01T00:00:00.000Z",
  };
  await sqlite.emailOverrides.put(override);
  const ipOverride = {
    target: "198.51.100.0/24",
    action: "allow" as const,
    reason: "partner office",
    author: "ops",
    created: new Date(now - 200).toISOString(),
    until: null,
  };
  await sqlite.ipOverrides.put(ipOverride);
  const rule = {
    id: "vpn-signups",
    conditions: { all: [{ field: "ip.kind", op: "has", value: "vpn" }] },
    decision: "challenge",
    reason: "sign-ups over a VPN",
  } as const;
  await editPolicy(sqlite.policy, putRule(rule, { author: "ops", nowMs: now }));
  await sqlite.policy.addCounts([
    { day: "2026-12-01", event: "signup", rule: "vpn-signups", outcome: "would_decide", count: 7 },
  ]);
  const revokedEvent = await sqlite.audit.append({
    at: new Date(now - 100).toISOString(),
    action: "key.revoked",
    outcome: "succeeded",
    target: `${gone.key.id} (old)`,
    actor: "ops@vm1",
    channel: "cli",
    change: { revokedAt: { before: null, after: new Date(now - 100).toISOString() } },
    detail: null,
  });
  await sqlite.close();

  const url = await freshDatabaseUrl();
  const migrated = await runCliAsync(["db", "migrate", "--from-sqlite", file], { RISKCHECK_DATABASE_URL: url });
  expect(migrated.stderr).toBe("");
  expect(migrated.code).toBe(0);
  expect(migrated.stdout).toContain("Copied");
  expect(migrated.stdout).toContain(
    "2 keys, 3 usage rows, 1 dashboard sessions, 1 sign-in lock-out records, 1 local reports, 1 email overrides, 1 IP overrides, 1 assessment rules, 1 audit events, the dashboard password",
  );
  const reports = JSON.parse(
    (await runCliAsync(["reports", "list", "--json"], { RISKCHECK_DATABASE_URL: url })).stdout,
  );
  expect(reports).toEqual([
    {
      reported_at: new Date(now - 500).toISOString(),
      ip: "81.2.69.142",
      category: "attack",
      key_id: kept.key.id,
      key_name: "checkout",
      comment: "credential stuffing",
    },
  ]);

  const listed = JSON.parse((await runCliAsync(["keys", "list", "--json"], { RISKCHECK_DATABASE_URL: url })).stdout);
  expect(listed.map((k: { name: string; status: string }) => [k.name, k.status])).toEqual([
    ["checkout", "active"],
    ["old", "revoked"],
  ]);
  expect(listed[0].usage).toMatchObject({ today: { ip: 4, email: 1 }, ip_quota_used: 3, ip_quota_left: 7 });
  expect(listed[0]).toMatchObject({
    last_used_ip: "10.1.2.3",
    expires_at: "2031-01-01T00:00:00.000Z",
    allowed_networks: ["10.0.0.0/8"],
    rotation_ends_at: new Date(now - 1_500 + 3_600_000).toISOString(),
  });

  const pg = await openPostgresStores(url);
  try {
    const serving = await pg.serving({ now: () => now, logError: (line) => expect(line).toBeUndefined() });
    expect(new KeyAuthenticator(serving.keys).authenticate(kept.secret).outcome).toBe("active");
    expect(new KeyAuthenticator(serving.keys, () => now).authenticate(previous).outcome).toBe("active");
    expect(new KeyAuthenticator(serving.keys).authenticate(gone.secret).outcome).toBe("revoked");
    // This month's successes are charged to the shared quota count: 7 of 10 are left to lease.
    // Asked for a second and a half (refills land in the background, later on a loaded machine): never more than 7.
    const leased = [];
    for (const until = performance.now() + scaled(1_500); performance.now() < until; ) {
      const decision = serving.quota.check(kept.key.id, 10, now);
      if (decision?.allowed) serving.quota.countSuccess(kept.key.id, now);
      leased.push(decision?.allowed);
      await Bun.sleep(5);
    }
    expect(leased.filter(Boolean)).toHaveLength(7);
    await serving.release();
    expect(await pg.sessions.find(token, now + 1)).not.toBeNull();
    expect(await pg.emailOverrides.list()).toEqual([override]);
    expect(await pg.ipOverrides.list()).toEqual([ipOverride]);
    expect(await pg.policy.read()).toEqual({
      revision: 1,
      rules: [{ ...rule, author: "ops", created: new Date(now).toISOString(), expires: null, mode: "shadow" }],
    });
    expect(await pg.policy.countsSince("2026-12-01")).toEqual([
      { day: "2026-12-01", event: "signup", rule: "vpn-signups", outcome: "would_decide", count: 7 },
    ]);
    const { id: _, ...copiedEvent } = revokedEvent!;
    expect(await pg.audit.read({ action: "key.revoked" }, { order: "oldest_first", limit: 10 })).toEqual([
      { id: expect.any(Number), ...copiedEvent },
    ]);
    expect((await pg.signInThrottle.begin("203.0.113.9", now + 1)).wait).toBeGreaterThan(0);
  } finally {
    await pg.close();
  }

  const again = await runCliAsync(["db", "migrate", "--from-sqlite", file], { RISKCHECK_DATABASE_URL: url });
  expect(again.code).toBe(1);
  expect(again.stderr).toContain("already has 2 key(s)");
});

test("db migrate copies a key whose limit is past PostgreSQL's INTEGER (set by an older riskcheck) at the largest one, and says so", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "rk-migrate-")), "riskcheck.sqlite");
  const sqlite = openSqliteStores(file);
  const { key } = await sqlite.keys.create({ name: "bulk" });
  await sqlite.close();
  const db = new Database(file);
  db.query("UPDATE api_keys SET rate_per_minute = 3000000000 WHERE id = ?").run(key.id);
  db.close();
  const url = await freshDatabaseUrl();
  const migrated = await runCliAsync(["db", "migrate", "--from-sqlite", file], { RISKCHECK_DATABASE_URL: url });
  expect(migrated.stderr).toBe("");
  expect(migrated.code).toBe(0);
  expect(migrated.stdout).toContain(`Note: the rate or quota of bulk (${key.id}) was above 2147483647`);
  const listed = JSON.parse((await runCliAsync(["keys", "list", "--json"], { RISKCHECK_DATABASE_URL: url })).stdout);
  expect(listed[0].rate_per_minute).toBe(2147483647);
});
