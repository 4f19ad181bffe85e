import { afterAll, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { leaseSize } from "../../src/limits/leased-monthly-quota.ts";
import { redactedDatabaseUrl } from "../../src/postgres/connection-url.ts";
import { DashboardClient } from "../support/dashboard-client.ts";
import { freshDatabaseUrl } from "../support/postgres.ts";
import { type ServeProcess, makeDataDir, runCliAsync, startServe } from "../support/processes.ts";

const PASSWORD = "correct horse battery staple";
const QUOTA = 100;
const REQUESTS = 200;
const running: ServeProcess[] = [];
afterAll(() => Promise.all(running.map((s) => s.stop("SIGKILL"))));

/** A browser on one instance's dashboard. */
function dashboardOf(server: ServeProcess): DashboardClient {
  return new DashboardClient(async (request) => {
    const url = request.url.replace("http://riskcheck.test", server.url);
    return fetch(url, { method: request.method, headers: request.headers, body: request.method === "GET" ? undefined : await request.text(), redirect: "manual" });
  });
}

test("two instances on one PostgreSQL database share keys, the quota, revocations and usage", async () => {
  const env = { RISKCHECK_DATABASE_URL: await freshDatabaseUrl(), RISKCHECK_ADMIN_PASSWORD: PASSWORD };
  const dataDirs = [makeDataDir(), makeDataDir()];
  const servers = await Promise.all(dataDirs.map((dir) => startServe(["--data-dir", dir], env)));
  running.push(...servers);
  for (const server of servers) expect(server.output()).toContain(`database: PostgreSQL ${redactedDatabaseUrl(env.RISKCHECK_DATABASE_URL)}`);

  const created = await runCliAsync(["keys", "create", "--name", "shared", "--ip-quota-per-month", String(QUOTA), "--json"], env);
  expect(created.code).toBe(0);
  const { id, key } = JSON.parse(created.stdout);
  const headers = { authorization: `Bearer ${key}` };
  // Usage counts what a key was used for; a revoked key's 401s have no key to count against.
  let emailAnswers = 0;
  const emailStatus = async (server: ServeProcess) => {
    const { status } = await fetch(`${server.url}/v1/check?email=someone@gmail.com`, { headers });
    if (status === 200) emailAnswers++;
    return status;
  };
  for (const server of servers) expect(await emailStatus(server)).toBe(200);

  const statuses = await Promise.all(
    Array.from({ length: REQUESTS }, (_, i) => fetch(`${servers[i % 2].url}/v1/ip-reputation-check?ip=8.8.8.8`, { headers }).then((r) => r.status)),
  );
  const successes = statuses.filter((s) => s === 200).length;
  expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
  // The documented slack: up to one lease per instance served on credit, up to one lease per other instance held unused.
  expect(successes).toBeGreaterThanOrEqual(QUOTA - leaseSize(QUOTA, 0));
  expect(successes).toBeLessThanOrEqual(QUOTA + 2 * leaseSize(QUOTA, 0));

  // Revoked through the second instance's dashboard: both refuse it.
  const browser = dashboardOf(servers[1]);
  expect((await browser.signIn(PASSWORD)).status).toBe(303);
  const { body } = await browser.get(`/dashboard/keys/${id}/revoke`);
  const csrf = body.match(/name="csrf" value="([^"]+)"/)![1];
  expect((await browser.post(`/dashboard/keys/${id}/revoke`, { csrf, confirm: "yes" })).res.status).toBe(303);
  const revokedAt = performance.now();
  const delays = await Promise.all(
    servers.map(async (server) => {
      while ((await emailStatus(server)) !== 401) {
        if (performance.now() - revokedAt > 2_000) throw new Error(`${server.url} still accepts the revoked key after 2 s`);
        await Bun.sleep(5);
      }
      return performance.now() - revokedAt;
    }),
  );

  expect(await Promise.all(servers.map((s) => s.stop("SIGTERM")))).toEqual([0, 0]);
  const listed = await runCliAsync(["keys", "list", "--json"], env);
  const [row] = JSON.parse(listed.stdout);
  expect(row).toMatchObject({ id, status: "revoked" });
  expect(row.usage.today).toEqual({ ip: REQUESTS, email: emailAnswers });
  expect(row.usage.ip_quota_used).toBe(successes);
  for (const dir of dataDirs) expect(readdirSync(dir).filter((name) => /sqlite|signal/.test(name))).toEqual([]);
  const { password } = new URL(env.RISKCHECK_DATABASE_URL);
  if (password) for (const server of servers) expect(server.output()).not.toContain(password);
  console.log(`two instances: ${successes} of ${REQUESTS} IP checks succeeded with a quota of ${QUOTA}; revocation refused after ${delays.map((d) => `${d.toFixed(0)} ms`).join(" and ")}; keys list after SIGTERM: ${row.usage.today.ip} IP and ${row.usage.today.email} email requests, ${row.usage.ip_quota_used} successes`);
}, 60_000);
